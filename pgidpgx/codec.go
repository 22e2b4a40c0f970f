package pgidpgx

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// The codecs are unexported: each is installed by one function of this
// package, and which one it is says what it changes.
//
//	codec          installed by                          changes
//	byteaCodec     Register (bytea, bytea[])             binary encoding of ObjectIDs only
//	objectIDCodec  LoadTypes (pgid.objectid, its array)  that, and decoding into any
//	ulidCodec      LoadTypes (pgid.ulid, its array),     decoding into any only
//	               DecodeUUIDAsULID (uuid, uuid[])

// byteaCodec is pgx's bytea codec, except that ObjectID, *ObjectID, ShortID
// and NullObjectID values encode in binary format by appending their 12
// bytes, without the allocation of BytesValue (which returns a slice of its
// value receiver, so the 12 bytes move to the heap). Every scan, decode and
// other encode, text format included, is pgtype.ByteaCodec's.
type byteaCodec struct{ pgtype.ByteaCodec }

// PlanEncode implements the [pgtype.Codec] interface.
func (c byteaCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case objectidtype.ObjectID, *objectidtype.ObjectID, objectidtype.ShortID, objectidtype.NullObjectID:
			return encodePlanObjectID{}
		}
	}
	return c.ByteaCodec.PlanEncode(m, oid, format, value)
}

// encodePlanObjectID appends the raw bytes of the values byteaCodec plans it
// for. (*ShortID and *NullObjectID reach it through pgx's pointer
// dereferencing plan.)
type encodePlanObjectID struct{}

// Encode implements the [pgtype.EncodePlan] interface.
func (encodePlanObjectID) Encode(value any, buf []byte) ([]byte, error) {
	var o objectidtype.ObjectID
	switch v := value.(type) {
	case objectidtype.ObjectID:
		o = v
	case objectidtype.ShortID:
		o = objectidtype.ObjectID(v)
	case *objectidtype.ObjectID:
		if v == nil {
			return nil, nil
		}
		o = *v
	case objectidtype.NullObjectID:
		if !v.Valid {
			return nil, nil
		}
		o = v.ObjectID
	default: // PlanEncode returns this plan for the types above only
		return nil, fmt.Errorf("pgidpgx: cannot encode %T as an ObjectID", value)
	}
	return append(buf, o[:]...), nil
}

// objectIDCodec is byteaCodec, except that values decoded into an any come
// back as an ObjectID (nil for NULL) instead of []byte. It is for the
// pgid.objectid domain, whose values are always 12 bytes.
type objectIDCodec struct{ byteaCodec }

// DecodeValue implements the [pgtype.Codec] interface.
func (c objectIDCodec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	if format == pgtype.TextFormatCode { // \x hex: let pgx decode it
		v, err := c.ByteaCodec.DecodeValue(m, oid, format, src)
		if err != nil {
			return nil, err
		}
		src = v.([]byte)
	}
	var o objectidtype.ObjectID
	if err := o.ScanBytes(src); err != nil { // as a scan into *ObjectID
		return nil, err
	}
	return o, nil
}

// ulidCodec is pgx's uuid codec, except that values decoded into an any come
// back as a ULID (nil for NULL) instead of [16]byte. pgx's uuid codec
// already scans and encodes ULIDs without allocating, so nothing else
// changes.
type ulidCodec struct{ pgtype.UUIDCodec }

// DecodeValue implements the [pgtype.Codec] interface.
func (ulidCodec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var u ulidtype.ULID
	var err error
	if format == pgtype.BinaryFormatCode {
		u, err = ulidtype.FromBytes(src)
	} else {
		err = u.UnmarshalText(src)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}
