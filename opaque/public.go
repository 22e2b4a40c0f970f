package opaque

import (
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// PublicObjectID is an ObjectId that writes itself as its public code: a
// field of a struct a service marshals (JSON, text). It carries its
// [Codec], so no global key is involved:
//
//	type Link struct {
//		Code opaque.PublicObjectID `json:"code"`
//	}
//	json.Marshal(Link{Code: codec.PublicObjectID(id)})
//
// To read one, set the field's codec first (codec.PublicObjectID with the
// zero ObjectId) and unmarshal into it; without a codec, unmarshalling fails
// with [ErrNoCodec] rather than guess a key.
type PublicObjectID struct {
	codec *Codec
	// ID is the stored ObjectId.
	ID objectidtype.ObjectID
}

// PublicObjectID returns id bound to c.
func (c *Codec) PublicObjectID(id objectidtype.ObjectID) PublicObjectID {
	return PublicObjectID{codec: c, ID: id}
}

// String returns the code, or "" without a codec.
func (p PublicObjectID) String() string {
	if p.codec == nil {
		return ""
	}
	return p.codec.ObjectIDCode(p.ID)
}

// AppendText appends the code to b.
func (p PublicObjectID) AppendText(b []byte) ([]byte, error) {
	if p.codec == nil {
		return b, ErrNoCodec
	}
	return p.codec.AppendObjectID(b, p.ID), nil
}

// MarshalText returns the code.
func (p PublicObjectID) MarshalText() ([]byte, error) {
	return p.AppendText(make([]byte, 0, ObjectIDCodeLen))
}

// UnmarshalText decodes a code with p's codec, under its current key.
func (p *PublicObjectID) UnmarshalText(text []byte) error {
	if p.codec == nil {
		return ErrNoCodec
	}
	id, err := p.codec.OpenObjectID(string(text))
	if err != nil {
		return err
	}
	p.ID = id
	return nil
}

// PublicULID is a ULID that writes itself as its public code; see
// [PublicObjectID].
type PublicULID struct {
	codec *Codec
	// ID is the stored ULID.
	ID ulidtype.ULID
}

// PublicULID returns id bound to c.
func (c *Codec) PublicULID(id ulidtype.ULID) PublicULID {
	return PublicULID{codec: c, ID: id}
}

// String returns the code, or "" without a codec.
func (p PublicULID) String() string {
	if p.codec == nil {
		return ""
	}
	return p.codec.ULIDCode(p.ID)
}

// AppendText appends the code to b.
func (p PublicULID) AppendText(b []byte) ([]byte, error) {
	if p.codec == nil {
		return b, ErrNoCodec
	}
	return p.codec.AppendULID(b, p.ID), nil
}

// MarshalText returns the code.
func (p PublicULID) MarshalText() ([]byte, error) {
	return p.AppendText(make([]byte, 0, ULIDCodeLen))
}

// UnmarshalText decodes a code with p's codec, under the key it names.
func (p *PublicULID) UnmarshalText(text []byte) error {
	if p.codec == nil {
		return ErrNoCodec
	}
	id, err := p.codec.OpenULID(string(text))
	if err != nil {
		return err
	}
	p.ID = id
	return nil
}
