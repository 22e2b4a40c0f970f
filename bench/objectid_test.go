package bench

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgid/pgid/objectidtype"
	"github.com/rs/xid"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var (
	oidSinkID    objectidtype.ObjectID
	oidSinkBSON  bson.ObjectID
	oidSinkStr   string
	oidSinkBytes []byte
	oidSinkInt   uint64
	oidFloorCtr  atomic.Uint64
	oidSinkXID   xid.ID
)

// BenchmarkObjectIDNew compares generation. The floor is one time.Now plus one
// atomic operation, the least a lock-free monotonic generator can do.
func BenchmarkObjectIDNew(b *testing.B) {
	b.Run("floor-now+atomic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkInt += uint64(time.Now().Unix()) + oidFloorCtr.Add(1)
		}
	})
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkID = objectidtype.New()
		}
	})
	b.Run("bson.NewObjectID", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkBSON = bson.NewObjectID()
		}
	})
	b.Run("xid.New", func(b *testing.B) { // 12 bytes: seconds, machine, pid, counter
		b.ReportAllocs()
		for b.Loop() {
			oidSinkXID = xid.New()
		}
	})
	b.Run("pgid-Fill1000", func(b *testing.B) {
		ids := make([]objectidtype.ObjectID, 1000)
		b.ReportAllocs()
		for b.Loop() {
			objectidtype.Fill(ids)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
	})
	b.Run("pgid-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var o objectidtype.ObjectID
			for pb.Next() {
				o = objectidtype.New()
			}
			_ = o
		})
	})
	b.Run("bson.NewObjectID-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var o bson.ObjectID
			for pb.Next() {
				o = bson.NewObjectID()
			}
			_ = o
		})
	})
}

func BenchmarkObjectIDString(b *testing.B) {
	p := objectidtype.New()
	m := bson.ObjectID(p)
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkStr = p.String()
		}
	})
	b.Run("bson.Hex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkStr = m.Hex()
		}
	})
	x := xid.ID(p)
	b.Run("xid.String", func(b *testing.B) { // 20 characters, base32hex
		b.ReportAllocs()
		for b.Loop() {
			oidSinkStr = x.String()
		}
	})
	b.Run("pgid-Short", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkStr = p.Short()
		}
	})
}

func BenchmarkObjectIDAppendText(b *testing.B) {
	p := objectidtype.New()
	m := bson.ObjectID(p)
	buf := make([]byte, 0, 64)
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = p.AppendText(buf[:0])
		}
	})
	x := xid.ID(p)
	b.Run("xid.Encode", func(b *testing.B) {
		b.ReportAllocs()
		xb := make([]byte, 20)
		for b.Loop() {
			oidSinkBytes = x.Encode(xb)
		}
	})
	b.Run("bson.MarshalText", func(b *testing.B) { // bson has no Append form
		b.ReportAllocs()
		for b.Loop() {
			oidSinkBytes, _ = m.MarshalText()
		}
	})
	b.Run("pgid-MarshalJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkBytes, _ = p.MarshalJSON()
		}
	})
	b.Run("bson.MarshalJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkBytes, _ = m.MarshalJSON()
		}
	})
	oidSinkBytes = buf
}

func BenchmarkObjectIDParse(b *testing.B) {
	p := objectidtype.New()
	h, s := p.String(), p.Short()
	b.Run("pgid-hex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkID, _ = objectidtype.Parse(h)
		}
	})
	b.Run("bson.ObjectIDFromHex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkBSON, _ = bson.ObjectIDFromHex(h)
		}
	})
	xs := xid.ID(p).String()
	b.Run("xid.FromString", func(b *testing.B) { // 20 characters, base32hex
		b.ReportAllocs()
		for b.Loop() {
			oidSinkXID, _ = xid.FromString(xs)
		}
	})
	b.Run("pgid-short", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oidSinkID, _ = objectidtype.Parse(s)
		}
	})
}

// BenchmarkObjectIDPgxScan compares the binary bytea scan plan into an
// ObjectID with pgx's own into a []byte (which allocates its copy).
func BenchmarkObjectIDPgxScan(b *testing.B) {
	m := pgtype.NewMap()
	p := objectidtype.New()
	src := p[:]
	b.Run("pgid", func(b *testing.B) {
		var o objectidtype.ObjectID
		plan := m.PlanScan(pgtype.ByteaOID, pgtype.BinaryFormatCode, &o)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src, &o)
		}
		oidSinkID = o
	})
	b.Run("pgx-[]byte", func(b *testing.B) {
		var v []byte
		plan := m.PlanScan(pgtype.ByteaOID, pgtype.BinaryFormatCode, &v)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src, &v)
		}
		oidSinkBytes = v
	})
	b.Run("pgx-DriverBytes", func(b *testing.B) { // no copy: the floor
		var v pgtype.DriverBytes
		plan := m.PlanScan(pgtype.ByteaOID, pgtype.BinaryFormatCode, &v)
		b.ReportAllocs()
		for b.Loop() {
			_ = plan.Scan(src, &v)
		}
		oidSinkBytes = v
	})
}

// BenchmarkObjectIDPgxEncode compares the binary bytea encode plan of an
// ObjectID with pgx's own of a []byte. Both values are already boxed in an
// interface, as pgx receives its arguments.
func BenchmarkObjectIDPgxEncode(b *testing.B) {
	m := pgtype.NewMap()
	p := objectidtype.New()
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		name string
		v    any
	}{{"pgid", p}, {"pgx-[]byte", p.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			plan := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, c.v)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = plan.Encode(c.v, buf[:0])
			}
		})
	}
	oidSinkBytes = buf
}
