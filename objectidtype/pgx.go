package objectidtype

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// pgx v5 support. ObjectID implements pgtype.BytesScanner and
// pgtype.BytesValuer, which pgx's bytea codec tries before anything else:
// values go over the wire as the 12 raw bytes in binary, and as \x-prefixed
// hex in text (QueryExecModeExec, QueryExecModeSimpleProtocol), never as the
// String form. Scanning does not allocate. Through pgx's own bytea codec,
// encoding allocates the 12 bytes that BytesValue returns, since a slice of a
// value receiver must live on the heap; [Codec] encodes without allocating.
// [Register] lets pgx encode ObjectIDs for parameters whose type it does not
// know, such as pgid.objectid domain parameters or the OID 0 parameters of the
// text modes.

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ObjectID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface. It copies v,
// which belongs to the driver, and accepts what [ObjectID.Scan] accepts as a
// []byte. NULL is an error wrapping [ErrNull]; scan into *ObjectID or
// [NullObjectID] to accept it. On error o is left unchanged.
func (o *ObjectID) ScanBytes(v []byte) error { return o.scanBytes(v) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (o ObjectID) BytesValue() ([]byte, error) { return o[:], nil }

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (NullObjectID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface.
func (n *NullObjectID) ScanBytes(v []byte) error {
	if v == nil {
		*n = NullObjectID{}
		return nil
	}
	o := n.ObjectID
	if err := o.scanBytes(v); err != nil {
		return err
	}
	*n = NullObjectID{ObjectID: o, Valid: true}
	return nil
}

// BytesValue implements the [pgtype.BytesValuer] interface.
func (n NullObjectID) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ObjectID.BytesValue() // only a valid n allocates
}

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (ShortID) SkipUnderlyingTypePlan() {}

// ScanBytes implements the [pgtype.BytesScanner] interface.
func (s *ShortID) ScanBytes(v []byte) error { return (*ObjectID)(s).scanBytes(v) }

// BytesValue implements the [pgtype.BytesValuer] interface.
func (s ShortID) BytesValue() ([]byte, error) { return s[:], nil }

// Register makes m encode ObjectID, *ObjectID, []ObjectID, []*ObjectID,
// *[]ObjectID, NullObjectID, []NullObjectID, ShortID, *ShortID and []ShortID
// as bytea (and bytea[]) when the parameter's type is not known in
// advance: parameters of a pgid.objectid domain, whose OID pgx has not loaded,
// and the OID 0 parameters of QueryExecModeExec and
// QueryExecModeSimpleProtocol. Call it on each connection's map, for example
// from pgxpool.Config.AfterConnect:
//
//	objectidtype.Register(conn.TypeMap())
//
// Scanning needs no registration: result columns of a domain report the
// base type. (The *[]ObjectID entry lets database/sql scan bytea[] text
// through m.SQLScanner(&ids).)
func Register(m *pgtype.Map) {
	m.RegisterDefaultPgType(ObjectID{}, "bytea")
	m.RegisterDefaultPgType((*ObjectID)(nil), "bytea")
	m.RegisterDefaultPgType([]ObjectID(nil), "_bytea")
	m.RegisterDefaultPgType([]*ObjectID(nil), "_bytea")
	m.RegisterDefaultPgType((*[]ObjectID)(nil), "_bytea") // for pgtype.Map.SQLScanner
	m.RegisterDefaultPgType(NullObjectID{}, "bytea")
	m.RegisterDefaultPgType([]NullObjectID(nil), "_bytea")
	m.RegisterDefaultPgType(ShortID{}, "bytea")
	m.RegisterDefaultPgType((*ShortID)(nil), "bytea")
	m.RegisterDefaultPgType([]ShortID(nil), "_bytea")
}

// Codec is pgx's bytea codec with two changes for ObjectIDs:
//
//   - ObjectID, *ObjectID, ShortID and NullObjectID arguments encode in binary
//     by appending their 12 bytes, without the allocation of BytesValue;
//   - values scanned into an any (or returned by pgx.Rows.Values) come back
//     as ObjectID instead of []byte.
//
// Every other scan and encode is pgtype.ByteaCodec's. pgidpgx.LoadTypes
// installs it for the pgid.objectid domain and its array; [RegisterByteaCodec]
// installs its encoding half for every bytea.
type Codec struct {
	pgtype.ByteaCodec
	keepBytes bool // decode into any as []byte, as pgx does
}

// PlanEncode implements the [pgtype.Codec] interface.
func (c Codec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case ObjectID, *ObjectID, ShortID, NullObjectID:
			return encodePlanBinary{}
		}
	}
	return c.ByteaCodec.PlanEncode(m, oid, format, value)
}

// encodePlanBinary appends the raw bytes of the ObjectID-like values Codec
// plans for.
type encodePlanBinary struct{}

// Encode implements the [pgtype.EncodePlan] interface.
func (encodePlanBinary) Encode(value any, buf []byte) ([]byte, error) {
	var o ObjectID
	switch v := value.(type) {
	case ObjectID:
		o = v
	case ShortID:
		o = ObjectID(v)
	case *ObjectID:
		if v == nil {
			return nil, nil
		}
		o = *v
	case NullObjectID:
		if !v.Valid {
			return nil, nil
		}
		o = v.ObjectID
	default: // PlanEncode returns this plan for the types above only
		return nil, fmt.Errorf("objectidtype: cannot encode %T as an ObjectID", value)
	}
	return append(buf, o[:]...), nil
}

// DecodeValue implements the [pgtype.Codec] interface: an ObjectID, or nil
// for NULL.
func (c Codec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	v, err := c.ByteaCodec.DecodeValue(m, oid, format, src)
	if c.keepBytes || v == nil || err != nil {
		return v, err
	}
	var o ObjectID
	if err := o.scanBytes(v.([]byte)); err != nil {
		return nil, err
	}
	return o, nil
}

// RegisterByteaCodec makes m encode ObjectID arguments of plain bytea
// parameters without allocating, by installing [Codec]'s encoding for the
// bytea type and its array. Decoding is unchanged: bytea values scanned into
// an any stay []byte.
func RegisterByteaCodec(m *pgtype.Map) {
	t := &pgtype.Type{Name: "bytea", OID: pgtype.ByteaOID, Codec: Codec{keepBytes: true}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_bytea", OID: pgtype.ByteaArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}
