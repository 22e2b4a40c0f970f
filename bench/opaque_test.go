package bench

import (
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/ulidtype"
	hashids "github.com/speps/go-hashids/v2"
	"github.com/sqids/sqids-go"
)

var (
	sinkOID   objectidtype.ObjectID
	sinkU64s  []uint64
	sinkI64s  []int64
	opaqueKey = opaque.NewKey(0, []byte("bench key, AES-256, 32 bytes!!!!"))
)

// BenchmarkOpaque measures public codes both ways: pgid's keyed codes
// (package opaque: FF1-AES for ObjectIds, AES for ULIDs) and, as reference
// points, Sqids and Hashids encoding the same 96 bits as two 48-bit numbers
// (neither is encryption; they are what users reach for instead).
func BenchmarkOpaque(b *testing.B) {
	codec, err := opaque.NewCodec(opaqueKey, opaque.NewKey(1, []byte("bench key, AES-128")[:16]))
	if err != nil {
		b.Fatal(err)
	}
	oid, uid := objectidtype.New(), ulidtype.New()
	ocode, ucode := codec.ObjectIDCode(oid), codec.ULIDCode(uid)
	buf := make([]byte, 0, 32)
	b.Run("objectid/seal/pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = codec.AppendObjectID(buf[:0], oid)
		}
	})
	b.Run("objectid/open/pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkOID, _ = codec.OpenObjectID(ocode)
		}
	})
	cands := make([]objectidtype.ObjectID, 0, 4)
	b.Run("objectid/open-2-keys/pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cands, _ = codec.AppendObjectIDCandidates(cands[:0], ocode)
		}
	})
	b.Run("ulid/seal/pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = codec.AppendULID(buf[:0], uid)
		}
	})
	b.Run("ulid/open/pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkULID, _ = codec.OpenULID(ucode)
		}
	})

	nums := []uint64{uint64(oid[0])<<40 | uint64(oid[1])<<32 | uint64(oid[2])<<24 | uint64(oid[3])<<16 | uint64(oid[4])<<8 | uint64(oid[5]),
		uint64(oid[6])<<40 | uint64(oid[7])<<32 | uint64(oid[8])<<24 | uint64(oid[9])<<16 | uint64(oid[10])<<8 | uint64(oid[11])}
	sq, err := sqids.New()
	if err != nil {
		b.Fatal(err)
	}
	sqCode, _ := sq.Encode(nums)
	b.Run("objectid/seal/sqids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr, _ = sq.Encode(nums)
		}
	})
	b.Run("objectid/open/sqids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkU64s = sq.Decode(sqCode)
		}
	})
	hd := hashids.NewData()
	hd.Salt = "pgid bench salt"
	h, err := hashids.NewWithData(hd)
	if err != nil {
		b.Fatal(err)
	}
	inums := []int64{int64(nums[0]), int64(nums[1])}
	hCode, _ := h.EncodeInt64(inums)
	b.Run("objectid/seal/hashids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr, _ = h.EncodeInt64(inums)
		}
	})
	b.Run("objectid/open/hashids", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkI64s, _ = h.DecodeInt64WithError(hCode)
		}
	})
}
