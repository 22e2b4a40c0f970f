package objectidtype_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
)

// The package's own pgx tests register through pgidpgx.Register, the
// function users call.
func init() { objectidtype.SetRegisterPgx(pgidpgx.Register) }

var sinkEncoded []byte

// BenchmarkPgxEncodeBinary encodes an ObjectID into a bytea parameter
// through pgx's own bytea codec (BytesValue: one 12-byte allocation) and
// through the one pgidpgx.Register installs (none).
func BenchmarkPgxEncodeBinary(b *testing.B) {
	for _, register := range []bool{false, true} {
		name := "ByteaCodec"
		m := pgtype.NewMap()
		if register {
			name = "Register"
			pgidpgx.Register(m)
		}
		b.Run(name, func(b *testing.B) {
			var v any = objectidtype.MustParse("4e7020cb7cac81af7136236b")
			plan := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, v)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = plan.Encode(v, buf[:0])
			}
			sinkEncoded = buf
		})
	}
}
