//go:build go1.27

package typeid

import (
	"fmt"
	"testing"
	"uuid"
)

func TestStdUUID(t *testing.T) {
	std := uuid.MustParse(exampleUUID)
	id := FromStdUUID[userPrefix](std)
	if id.String() != exampleText || id.StdUUID() != std || id.StdUUID().String() != id.UUIDString() {
		t.Fatalf("FromStdUUID = %s, StdUUID = %s", id, id.StdUUID())
	}
	for range 1000 {
		v7 := uuid.NewV7()
		id := FromStdUUID[userPrefix](v7)
		if !id.IsV7() || id.StdUUID() != v7 || id.UUIDString() != v7.String() {
			t.Fatalf("%s -> %s", v7, id)
		}
		back, err := Parse[userPrefix](id.String())
		if err != nil || back.StdUUID() != v7 {
			t.Fatalf("text round trip of %s: %v", v7, err)
		}
	}
	if n := New[userPrefix](); FromStdUUID[userPrefix](n.StdUUID()) != n {
		t.Fatal("New round trip")
	}
}

func ExampleFromStdUUID() {
	std := uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")
	id := FromStdUUID[userPrefix](std)
	fmt.Println(id, id.StdUUID() == std)
	// Output: user_01h455vb4pex5vsknk084sn02q true
}
