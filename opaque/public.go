package opaque

import (
	"errors"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// ErrNoCodec: a Public value with no Codec was marshalled or filled. Test
// for it with [errors.Is].
var ErrNoCodec = errors.New("opaque: no codec")

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
	var b [ObjectIDCodeLen]byte
	t, _ := p.AppendText(b[:0])
	return string(t)
}

// AppendText appends the code to b.
func (p PublicObjectID) AppendText(b []byte) ([]byte, error) {
	return appendCode(p.codec, b, p.ID, (*Codec).AppendObjectID)
}

// MarshalText returns the code.
func (p PublicObjectID) MarshalText() ([]byte, error) {
	return p.AppendText(make([]byte, 0, ObjectIDCodeLen))
}

// UnmarshalText decodes a code with p's codec, under its current key.
func (p *PublicObjectID) UnmarshalText(text []byte) error {
	return openCode(p.codec, text, (*Codec).OpenObjectID, &p.ID)
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
	var b [ULIDCodeLen]byte
	t, _ := p.AppendText(b[:0])
	return string(t)
}

// AppendText appends the code to b.
func (p PublicULID) AppendText(b []byte) ([]byte, error) {
	return appendCode(p.codec, b, p.ID, (*Codec).AppendULID)
}

// MarshalText returns the code.
func (p PublicULID) MarshalText() ([]byte, error) {
	return p.AppendText(make([]byte, 0, ULIDCodeLen))
}

// UnmarshalText decodes a code with p's codec, under the key it names.
func (p *PublicULID) UnmarshalText(text []byte) error {
	return openCode(p.codec, text, (*Codec).OpenULID, &p.ID)
}

// appendCode appends the code of id, made by appendID, to b; without a
// codec it appends nothing and returns [ErrNoCodec].
func appendCode[ID any](c *Codec, b []byte, id ID, appendID func(*Codec, []byte, ID) []byte) ([]byte, error) {
	if c == nil {
		return b, ErrNoCodec
	}
	return appendID(c, b, id), nil
}

// openCode sets *dst to the ID open finds for text; without a codec, or on
// error, *dst is left unchanged.
func openCode[ID any](c *Codec, text []byte, open func(*Codec, string) (ID, error), dst *ID) error {
	if c == nil {
		return ErrNoCodec
	}
	id, err := open(c, string(text))
	if err != nil {
		return err
	}
	*dst = id
	return nil
}
