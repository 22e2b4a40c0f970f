package bench

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"
	"time"

	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	oklog "github.com/oklog/ulid/v2"
	"github.com/pgid/pgid/ulidtype"
	"github.com/segmentio/ksuid"
)

var (
	sinkULID  ulidtype.ULID
	sinkOklog oklog.ULID
	sinkUUID  uuid.UUID
	sinkStr   string
	sinkBytes []byte
	sinkInt   int64
	sinkGofrs gofrs.UUID
	sinkKSUID ksuid.KSUID
)

// BenchmarkULIDNew compares generation. The floors are one time.Now plus the
// 80 random bits, from crypto/rand and from a ChaCha8 generator (New's own
// entropy source, without New's lock, state or buffer).
func BenchmarkULIDNew(b *testing.B) {
	b.Run("floor-now+crypto", func(b *testing.B) {
		var r [10]byte
		for b.Loop() {
			sinkInt += time.Now().UnixMilli()
			rand.Read(r[:])
			sinkInt += int64(r[0])
		}
	})
	b.Run("floor-now+chacha8", func(b *testing.B) {
		var seed [32]byte
		rand.Read(seed[:])
		c := mrand.NewChaCha8(seed)
		for b.Loop() {
			sinkInt += time.Now().UnixMilli()
			sinkInt += int64(c.Uint64() + c.Uint64()&0xFFFF)
		}
	})
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID = ulidtype.New()
		}
	})
	b.Run("oklog.Make", func(b *testing.B) { // monotonic, math/rand entropy
		b.ReportAllocs()
		for b.Loop() {
			sinkOklog = oklog.Make()
		}
	})
	b.Run("oklog.Monotonic-crypto", func(b *testing.B) { // monotonic, crypto/rand entropy
		entropy := oklog.Monotonic(rand.Reader, 0)
		b.ReportAllocs()
		for b.Loop() {
			sinkOklog = oklog.MustNew(oklog.Now(), entropy)
		}
	})
	b.Run("uuid.NewV7", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkUUID, _ = uuid.NewV7()
		}
	})
	b.Run("gofrs.NewV7", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkGofrs, _ = gofrs.NewV7()
		}
	})
	b.Run("ksuid.New", func(b *testing.B) { // 20 bytes: seconds, 128 random bits
		b.ReportAllocs()
		for b.Loop() {
			sinkKSUID = ksuid.New()
		}
	})
}

func BenchmarkULIDString(b *testing.B) {
	p := ulidtype.New()
	o := oklog.ULID(p)
	g := uuid.UUID(p)
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = p.String()
		}
	})
	b.Run("oklog", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = o.String()
		}
	})
	b.Run("pgid-UUIDString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = p.UUIDString()
		}
	})
	b.Run("uuid.String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = g.String()
		}
	})
	gf, k := gofrs.UUID(p), ksuid.New()
	b.Run("gofrs.String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = gf.String()
		}
	})
	b.Run("ksuid.String", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = k.String()
		}
	})
}

func BenchmarkULIDAppendText(b *testing.B) {
	p := ulidtype.New()
	o := oklog.ULID(p)
	buf := make([]byte, 0, 64)
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = p.AppendText(buf[:0])
		}
	})
	b.Run("oklog.MarshalTextTo", func(b *testing.B) {
		b.ReportAllocs()
		buf = buf[:26]
		for b.Loop() {
			_ = o.MarshalTextTo(buf)
		}
	})
	k := ksuid.New()
	b.Run("ksuid.Append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = k.Append(buf[:0])
		}
	})
	sinkBytes = buf
}

func BenchmarkULIDParse(b *testing.B) {
	p := ulidtype.New()
	s, us := p.String(), p.UUIDString()
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID, _ = ulidtype.Parse(s)
		}
	})
	b.Run("oklog.ParseStrict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkOklog, _ = oklog.ParseStrict(s)
		}
	})
	b.Run("oklog.Parse", func(b *testing.B) { // not strict: accepts I, L, O, U
		b.ReportAllocs()
		for b.Loop() {
			sinkOklog, _ = oklog.Parse(s)
		}
	})
	b.Run("pgid-uuid-form", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID, _ = ulidtype.Parse(us)
		}
	})
	b.Run("uuid.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkUUID, _ = uuid.Parse(us)
		}
	})
	b.Run("gofrs.FromString", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkGofrs, _ = gofrs.FromString(us)
		}
	})
	ks := ksuid.New().String()
	b.Run("ksuid.Parse", func(b *testing.B) { // 27 characters, base62
		b.ReportAllocs()
		for b.Loop() {
			sinkKSUID, _ = ksuid.Parse(ks)
		}
	})
}

// BenchmarkULIDPgx runs pgx's own binary plans for uuid with a ULID and with
// pgx's pgtype.UUID.
func BenchmarkULIDPgx(b *testing.B) {
	m := pgtype.NewMap()
	u := ulidtype.New()
	src := u[:]
	b.Run("scan/pgid", func(b *testing.B) {
		var dst ulidtype.ULID
		plan := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &dst)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src, &dst)
		}
	})
	b.Run("scan/pgtype.UUID", func(b *testing.B) {
		var dst pgtype.UUID
		plan := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &dst)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src, &dst)
		}
	})
	buf := make([]byte, 0, 64)
	for _, v := range []struct {
		name string
		arg  any
	}{{"encode/pgid", u}, {"encode/pgtype.UUID", pgtype.UUID{Bytes: u, Valid: true}}} {
		b.Run(v.name, func(b *testing.B) {
			plan := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v.arg)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = plan.Encode(v.arg, buf[:0])
			}
		})
	}
	sinkBytes = buf
}
