package bench

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/google/uuid"
	oklog "github.com/oklog/ulid/v2"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestTextMatchesPeers checks the hand-unrolled text code that the
// benchmarks time against the peers' on random values: what is fast must
// also be the same text.
func TestTextMatchesPeers(t *testing.T) {
	for range 100_000 {
		var u ulidtype.ULID
		rand.Read(u[:])
		u[0] &= 0x7F // any 16 bytes; the top bit too, below
		for _, v := range []ulidtype.ULID{u, {0x80 | u[0]}} {
			o := oklog.ULID(v)
			if got, want := v.String(), o.String(); got != want {
				t.Fatalf("String of %x: %s, oklog %s", v[:], got, want)
			}
			if got, _ := v.AppendText(nil); string(got) != o.String() {
				t.Fatalf("AppendText of %x: %s, oklog %s", v[:], got, o.String())
			}
			if got, want := v.UUIDString(), uuid.UUID(v).String(); got != want {
				t.Fatalf("UUIDString of %x: %s, google/uuid %s", v[:], got, want)
			}
			for _, s := range []string{o.String(), strings.ToLower(o.String())} {
				p, err := ulidtype.Parse(s)
				if err != nil || p != v {
					t.Fatalf("Parse(%q) = %x, %v; want %x", s, p[:], err, v[:])
				}
			}
		}
		var id objectidtype.ObjectID
		rand.Read(id[:])
		if got, want := id.String(), bson.ObjectID(id).Hex(); got != want {
			t.Fatalf("String of %x: %s, bson %s", id[:], got, want)
		}
		if got, _ := id.AppendText([]byte("x")); string(got) != "x"+bson.ObjectID(id).Hex() {
			t.Fatalf("AppendText of %x: %s", id[:], got)
		}
	}
}
