//go:build go1.27

package integration_test

import (
	"testing"

	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// docs/IDS.md's section on Go 1.27's uuid: its Go block stands here and runs.
func TestReadmeStdUUID(t *testing.T) {
	u := ulidtype.New()
	want := u

	std := u.StdUUID()                         // ulidtype.ULID -> uuid.UUID, the same 16 bytes
	u = ulidtype.FromStdUUID(std)              // and back; any version
	tid := typeid.FromStdUUID[UserPrefix](std) // typeid.ID <-> uuid.UUID: tid.StdUUID()

	if u != want || tid.StdUUID() != std || std.String() != u.UUIDString() || tid.ULID() != u {
		t.Fatalf("%s / %s / %s", u, std, tid)
	}
}
