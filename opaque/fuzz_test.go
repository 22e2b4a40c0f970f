package opaque

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// FuzzOpenObjectID: any input is refused with ErrLength or ErrCharacter, or
// is the code of the ObjectId it decodes to.
func FuzzOpenObjectID(f *testing.F) {
	c := mustCodec(f, fixedKey(0))
	f.Add(c.ObjectIDCode(objectidtype.New()))
	f.Add("")
	f.Add("0123456789abcdeÄ")
	f.Add("________________")
	f.Fuzz(func(t *testing.T, code string) {
		id, err := c.OpenObjectID(code)
		if err != nil {
			if !errors.Is(err, ErrLength) && !errors.Is(err, ErrCharacter) {
				t.Fatalf("%q: %v", code, err)
			}
			return
		}
		if back := c.ObjectIDCode(id); back != code {
			t.Fatalf("%q decodes to %s, whose code is %q", code, id, back)
		}
	})
}

// FuzzOpenULID: any input is refused with ErrLength, ErrCharacter or
// ErrUnknownKey, or is (in either case) the code of the ULID it decodes
// to under the key it names.
func FuzzOpenULID(f *testing.F) {
	keys := []Key{fixedKey(0), NewKey(2, []byte("another 16 bytes"))}
	byCurrent := map[uint8]*Codec{0: mustCodec(f, keys[0], keys[1]), 2: mustCodec(f, keys[1], keys[0])}
	f.Add(byCurrent[0].ULIDCode(ulidtype.New()))
	f.Add(strings.ToLower(byCurrent[2].ULIDCode(ulidtype.New())))
	f.Add("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
	f.Add("ZZZZZZZZZZZZZZZZZZZZZZZZZZ")
	f.Add("0000000000000000000000000U")
	f.Fuzz(func(t *testing.T, code string) {
		id, err := byCurrent[0].OpenULID(code)
		if err != nil {
			if !errors.Is(err, ErrLength) && !errors.Is(err, ErrCharacter) && !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("%q: %v", code, err)
			}
			return
		}
		key := uint8(strings.IndexByte(ulidtype.Alphabet, strings.ToUpper(code)[0]) >> 3)
		if back := byCurrent[key].ULIDCode(id); back != strings.ToUpper(code) {
			t.Fatalf("%q decodes to %s, whose code is %q", code, id, back)
		}
	})
}
