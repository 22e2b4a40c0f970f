package ulidtype

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

var (
	sinkULID  ULID
	sinkStr   string
	sinkInt   int64
	sinkBytes []byte
)

// BenchmarkFloorNowCrypto is the floor New is measured against: one clock
// read plus 80 random bits from crypto/rand.
func BenchmarkFloorNowCrypto(b *testing.B) {
	var r [10]byte
	for b.Loop() {
		sinkInt += time.Now().UnixMilli()
		crand.Read(r[:])
		sinkInt += int64(r[0])
	}
}

// BenchmarkFloorNowChaCha8 is a lower floor: one clock read plus 80 random
// bits from an in-process ChaCha8 generator, the default entropy of New.
func BenchmarkFloorNowChaCha8(b *testing.B) {
	var seed [32]byte
	c := rand.NewChaCha8(seed)
	for b.Loop() {
		sinkInt += time.Now().UnixMilli()
		sinkInt += int64(c.Uint64() + c.Uint64()&0xFFFF)
	}
}

// BenchmarkEntropyDraw compares two ways of taking 64 bits from ChaCha8:
// directly, as the Generator does, and from a 256-byte buffer refilled with
// ChaCha8.Read, as it did before (the buffer did not earn its place).
func BenchmarkEntropyDraw(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		var c rand.ChaCha8
		for b.Loop() {
			sinkInt += int64(c.Uint64())
		}
	})
	b.Run("buffer256", func(b *testing.B) {
		var c rand.ChaCha8
		var buf [256]byte
		pos := 0
		for b.Loop() {
			if pos == 0 {
				c.Read(buf[:])
			}
			sinkInt += int64(binary.BigEndian.Uint64(buf[pos:]))
			pos = (pos + 8) % len(buf)
		}
	})
}

// layouts are the sub-benchmarks of the New benchmarks. -count repeats each
// sub-benchmark back to back; on a loaded machine compare the layouts over
// several runs with -count 1, in which they take turns.
var layouts = []struct {
	name string
	l    Layout
}{{"V7", LayoutV7}, {"ULID", LayoutULID}}

func BenchmarkNew(b *testing.B) {
	defer SetDefaultLayout(DefaultLayout())
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			SetDefaultLayout(l.l)
			b.ReportAllocs()
			for b.Loop() {
				sinkULID = New()
			}
		})
	}
}

func BenchmarkNewParallel(b *testing.B) {
	defer SetDefaultLayout(DefaultLayout())
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			SetDefaultLayout(l.l)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var u ULID
				for pb.Next() {
					u = New()
				}
				sinkULID = u
			})
		})
	}
}

func BenchmarkFill(b *testing.B) {
	b.ReportAllocs()
	ids := make([]ULID, 1000)
	for b.Loop() {
		Fill(ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
}

func BenchmarkString(b *testing.B) {
	u := New()
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = u.String()
	}
}

func BenchmarkUUIDString(b *testing.B) {
	u := New()
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = u.UUIDString()
	}
}

func BenchmarkAppendText(b *testing.B) {
	u := New()
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = u.AppendText(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkParse(b *testing.B) {
	u := New()
	for _, form := range []struct{ name, s string }{
		{"base32", u.String()},
		{"uuid", u.UUIDString()},
		{"hex", u.UUIDString()[:8] + u.UUIDString()[9:13] + u.UUIDString()[14:18] + u.UUIDString()[19:23] + u.UUIDString()[24:]},
	} {
		b.Run(form.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkULID, _ = Parse(form.s)
			}
		})
	}
}

func BenchmarkScanSQL(b *testing.B) {
	src := New().UUIDString()
	b.ReportAllocs()
	var u ULID
	for b.Loop() {
		_ = u.Scan(src)
	}
	sinkULID = u
}

// The pgx benchmarks compare ULID with pgx's own pgtype.UUID through the same
// plans pgx uses on a connection.
func BenchmarkPgxScan(b *testing.B) {
	m := pgtype.NewMap()
	src := New()
	b.Run("ULID", func(b *testing.B) {
		var dst ULID
		plan := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &dst)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src[:], &dst)
		}
		sinkULID = dst
	})
	b.Run("pgtype.UUID", func(b *testing.B) {
		var dst pgtype.UUID
		plan := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &dst)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src[:], &dst)
		}
		sinkULID = dst.Bytes
	})
}

func BenchmarkPgxEncode(b *testing.B) {
	m := pgtype.NewMap()
	buf := make([]byte, 0, 64)
	u := New()
	for _, v := range []struct {
		name string
		arg  any
	}{
		{"ULID", u},
		{"pgtype.UUID", pgtype.UUID{Bytes: u, Valid: true}},
	} {
		b.Run(v.name, func(b *testing.B) {
			plan := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v.arg)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = plan.Encode(v.arg, buf[:0])
			}
			sinkBytes = buf
		})
	}
}

// fixedNow is a clock without the cost of reading one, so that
// BenchmarkGeneratorNew and BenchmarkGeneratorFill measure the generator
// alone (time.Now costs more than the rest on some virtual machines).
var fixedNow = time.UnixMilli(1700000000000)

func BenchmarkGeneratorNew(b *testing.B) {
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			g := NewGenerator(func() time.Time { return fixedNow }, nil)
			g.SetLayout(l.l)
			b.ReportAllocs()
			for b.Loop() {
				sinkULID = g.New()
			}
		})
	}
}

func BenchmarkGeneratorFill(b *testing.B) {
	g := NewGenerator(func() time.Time { return fixedNow }, nil)
	ids := make([]ULID, 1000)
	b.ReportAllocs()
	for b.Loop() {
		g.Fill(ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
}
