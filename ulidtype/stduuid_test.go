//go:build go1.27

package ulidtype

import (
	"fmt"
	"testing"
	"time"
	"uuid"
)

// TestStdUUID: the standard library's uuid.UUID and ULID hold the same 16
// bytes and print the same UUID text; the standard NewV7 values are ULIDs
// whose time is the UUIDv7's.
func TestStdUUID(t *testing.T) {
	for _, v := range vectors {
		std := uuid.MustParse(v.uuid)
		u := FromStdUUID(std)
		if u.String() != v.base32 || u.StdUUID() != std || std.String() != u.UUIDString() {
			t.Errorf("%s: FromStdUUID = %s, StdUUID = %s", v.uuid, u, u.StdUUID())
		}
	}
	for range 1000 {
		before := MinAt(time.Now())
		std := uuid.NewV7()
		u := FromStdUUID(std)
		if !u.IsV7() || u.Compare(before) < 0 || u.Compare(Until(time.Now())) >= 0 {
			t.Fatalf("NewV7 %s as ULID %s: v7 %v, time %v", std, u, u.IsV7(), u.Timestamp())
		}
		if n := New(); FromStdUUID(n.StdUUID()) != n || n.StdUUID().String() != n.UUIDString() {
			t.Fatalf("New %s round trip", n)
		}
	}
}

func ExampleULID_StdUUID() {
	u := MustParse("01H455VB4PEX5VSKNK084SN02Q")
	std := u.StdUUID() // database/sql in Go 1.27 binds and scans it natively
	fmt.Println(std, FromStdUUID(std) == u)
	// Output: 01890a5d-ac96-774b-bcce-b302099a8057 true
}
