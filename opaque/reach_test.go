package opaque

import (
	"bytes"
	"crypto/aes"
	"encoding/binary"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// reachable walks everything v reaches the way a reflection-based dumper
// does (go-spew, kr/pretty, litter: unexported fields, pointers,
// interfaces, slices, maps) and returns the integers it finds as two byte
// streams, each word written big- and little-endian.
func reachable(v any) (be, le []byte) {
	seen := map[uintptr]bool{}
	var walk func(reflect.Value, int)
	walk = func(v reflect.Value, depth int) {
		if !v.IsValid() || depth > 64 {
			return
		}
		switch v.Kind() {
		case reflect.Uint8:
			be, le = append(be, byte(v.Uint())), append(le, byte(v.Uint()))
		case reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr:
			n := int(v.Type().Size())
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], v.Uint())
			be = append(be, b[8-n:]...)
			binary.LittleEndian.PutUint64(b[:], v.Uint())
			le = append(le, b[:n]...)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
			n := int(v.Type().Size())
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], uint64(v.Int()))
			be = append(be, b[8-n:]...)
			binary.LittleEndian.PutUint64(b[:], uint64(v.Int()))
			le = append(le, b[:n]...)
		case reflect.String:
			be, le = append(be, v.String()...), append(le, v.String()...)
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), depth+1)
		case reflect.Interface:
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), depth+1)
			}
		case reflect.Array, reflect.Slice:
			if v.Kind() == reflect.Slice {
				if v.IsNil() || (v.Len() > 0 && seen[v.Pointer()]) {
					return
				}
				if v.Len() > 0 {
					seen[v.Pointer()] = true
				}
			}
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key(), depth+1)
				walk(it.Value(), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(v), 0)
	return be, le
}

// TestSecretNotReachable: nothing a Key, a Codec or a struct holding them
// points to, however deep, holds the secret, AES's round keys or FF1's
// block under the key: a dumper that reads unexported fields and follows
// pointers finds handles only.
func TestSecretNotReachable(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		secret := bytes.Repeat([]byte{0xa5, 0x17, 0xc3, 0x5e}, size/4)
		for i := range secret {
			secret[i] ^= byte(i * 7)
		}
		k := NewKey(1, secret)
		c := mustCodec(t, k)
		// What the Codec derives: AES's last round key (the schedule's
		// first words are the secret itself) and FF1's block.
		block, _ := aes.NewCipher(secret)
		var ciphP [16]byte
		p := ff1P()
		block.Encrypt(ciphP[:], p[:])
		needles := map[string][]byte{"the secret": secret[:8], "the end of the secret": secret[size-8:], "FF1's block": ciphP[:8]}
		// A copy of the schedule as crypto/aes holds it, found the same
		// way: its last 16 bytes are the last round key.
		sbe, sle := reachable(block)
		if !bytes.Contains(sbe, secret[:8]) && !bytes.Contains(sle, secret[:8]) {
			t.Fatalf("the walk does not find the secret in crypto/aes's own block: %x", sle)
		}
		type holder struct {
			key   Key
			codec *Codec
			value Codec
			pub   PublicObjectID
		}
		for name, v := range map[string]any{
			"Key":              k,
			"*Key":             &k,
			"*Codec":           c,
			"Codec":            *c,
			"struct{...}":      holder{k, c, *c, c.PublicObjectID(objectidtype.New())},
			"PublicULID":       c.PublicULID(ulidtype.New()),
			"[]any{Key,Codec}": []any{k, c},
		} {
			be, le := reachable(v)
			for what, needle := range needles {
				if bytes.Contains(be, needle) || bytes.Contains(le, needle) {
					t.Errorf("%d-byte key: %s reaches %s", size, name, what)
				}
			}
		}
		runtime.KeepAlive(k)
	}
}

// TestDumpersCallMethods: String on copies and zero values, as dumpers
// call it through reflection (spew makes an unaddressable value
// addressable to reach pointer methods), never panics.
func TestDumpersCallMethods(t *testing.T) {
	k := NewKey(2, make([]byte, 16))
	c := mustCodec(t, k)
	cc := *c
	var zk Key
	var zc Codec
	for _, c := range []struct{ got, want string }{
		{k.String(), "opaque.Key{ID: 2, Secret: 16 bytes}"},
		{zk.String(), "opaque.Key{}"},
		{cc.String(), "opaque.Codec{keys: 2 (current)}"},
		{zc.String(), "opaque.Codec{keys:}"},
		{(*Codec)(nil).String(), "opaque.Codec{keys:}"},
		{fmt.Sprint(reflect.ValueOf(&cc).Interface()), "opaque.Codec{keys: 2 (current)}"},
		{fmt.Sprint(len(zc.KeyIDs())), "0"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	// Neither a Key nor a Codec is pointer-shaped: spew 1.1.1 calls
	// methods of such values through a broken reflect.Value and crashes.
	for _, typ := range []reflect.Type{reflect.TypeFor[Key](), reflect.TypeFor[Codec]()} {
		if typ.Size() <= reflect.TypeFor[uintptr]().Size() {
			t.Errorf("%v is one word: go-spew calls its methods on a garbage value", typ)
		}
	}
}
