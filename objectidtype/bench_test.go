package objectidtype

import (
	"encoding/hex"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Results are stored in package variables so the compiler keeps the work.
var (
	sinkID    ObjectID
	sinkStr   string
	sinkBytes []byte
	sinkU64   uint64
	floorCtr  atomic.Uint64
)

// BenchmarkFloor is the least New can cost: one clock read and one atomic
// operation.
func BenchmarkFloor(b *testing.B) {
	for b.Loop() {
		sinkU64 = uint64(time.Now().Unix()) + floorCtr.Add(1)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		sinkID = New()
	}
}

func BenchmarkNewParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		var o ObjectID
		for pb.Next() {
			o = New()
		}
		_ = o
	})
}

func BenchmarkFill(b *testing.B) {
	ids := make([]ObjectID, 1000)
	for b.Loop() {
		Fill(ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
}

func BenchmarkString(b *testing.B) {
	o := seedBytes
	for b.Loop() {
		sinkStr = o.String()
	}
}

// BenchmarkStdlibHex is String's floor: what encoding/hex does for 12 bytes.
func BenchmarkStdlibHex(b *testing.B) {
	o := seedBytes
	for b.Loop() {
		sinkStr = hex.EncodeToString(o[:])
	}
}

func BenchmarkShort(b *testing.B) {
	o := seedBytes
	for b.Loop() {
		sinkStr = o.Short()
	}
}

func BenchmarkAppendText(b *testing.B) {
	o := seedBytes
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf, _ = o.AppendText(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkParseHex(b *testing.B) {
	for b.Loop() {
		sinkID, _ = Parse(seedHex)
	}
}

func BenchmarkParseShort(b *testing.B) {
	for b.Loop() {
		sinkID, _ = Parse(seedShort)
	}
}

func BenchmarkUnmarshalJSON(b *testing.B) {
	js := []byte(`"` + seedHex + `"`)
	var o ObjectID
	for b.Loop() {
		_ = o.UnmarshalJSON(js)
	}
}

func BenchmarkPgxScanBinary(b *testing.B) {
	m := pgtype.NewMap()
	var o ObjectID
	plan := m.PlanScan(pgtype.ByteaOID, pgtype.BinaryFormatCode, &o)
	src := seedBytes[:]
	for b.Loop() {
		_ = plan.Scan(src, &o)
	}
	sinkID = o
}

func BenchmarkPgxScanText(b *testing.B) {
	m := pgtype.NewMap()
	var o ObjectID
	plan := m.PlanScan(pgtype.ByteaOID, pgtype.TextFormatCode, &o)
	src := []byte(`\x` + seedHex)
	for b.Loop() {
		_ = plan.Scan(src, &o)
	}
	sinkID = o
}

func BenchmarkPgxEncodeText(b *testing.B) {
	m := pgtype.NewMap()
	var v any = seedBytes
	plan := m.PlanEncode(pgtype.ByteaOID, pgtype.TextFormatCode, v)
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf, _ = plan.Encode(v, buf[:0])
	}
	sinkBytes = buf
}

// fixedNow is a clock without the cost of reading one, so that
// BenchmarkGeneratorNew and BenchmarkGeneratorFill measure the generator
// alone (time.Now costs more than the rest on some virtual machines).
var fixedNow = time.Unix(1700000000, 0)

func BenchmarkGeneratorNew(b *testing.B) {
	g := NewGenerator(func() time.Time { return fixedNow }, nil)
	b.ReportAllocs()
	for b.Loop() {
		sinkID = g.New()
	}
}

func BenchmarkGeneratorFill(b *testing.B) {
	g := NewGenerator(func() time.Time { return fixedNow }, nil)
	ids := make([]ObjectID, 1000)
	b.ReportAllocs()
	for b.Loop() {
		g.Fill(ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
}
