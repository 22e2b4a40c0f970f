package opaque

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/pgid/pgid/ulidtype"
)

// TestKeyLifetime: copies of a Key or a Codec keep working after the
// original is gone, and once every copy is dropped the table entries are
// released (and a Key's secret wiped).
func TestKeyLifetime(t *testing.T) {
	keys0, codecs0 := keySecrets.len(), codecStates.len()
	copyOf := func() (Key, Codec, string) {
		k := NewKey(3, bytes.Repeat([]byte{7}, 32))
		c := mustCodec(t, k)
		return k, *c, c.ULIDCode(ulidtype.ULID{1})
	}
	k, cc, code := copyOf()
	runtime.GC()
	runtime.GC()
	if got := cc.ULIDCode(ulidtype.ULID{1}); got != code {
		t.Fatalf("a copied Codec after GC: %s, want %s", got, code)
	}
	if got := mustCodec(t, k).ULIDCode(ulidtype.ULID{1}); got != code {
		t.Fatalf("a copied Key after GC: %s, want %s", got, code)
	}
	secret := keySecrets.get(k.ref.h)
	runtime.KeepAlive(cc)
	runtime.KeepAlive(k)

	// Many keys and codecs, dropped: the tables shrink back.
	for i := 0; i < 1000; i++ {
		mustCodec(t, NewKey(0, make([]byte, 16)))
	}
	deadline := time.Now().Add(10 * time.Second)
	for keySecrets.len() > keys0 || codecStates.len() > codecs0 {
		if time.Now().After(deadline) {
			t.Fatalf("after GC: %d keys and %d codecs in the tables, want %d and %d", keySecrets.len(), codecStates.len(), keys0, codecs0)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if !bytes.Equal(*secret, make([]byte, 32)) {
		t.Errorf("a dropped Key's secret was not wiped: %x", *secret)
	}
}

// TestTableConcurrent: codecs made and dropped on other goroutines (their
// table slots released and reused) never change the codes of a codec in
// use.
func TestTableConcurrent(t *testing.T) {
	c := mustCodec(t, NewKey(1, bytes.Repeat([]byte{9}, 16)))
	oid := [12]byte{1, 2, 3}
	want, wantU := c.ObjectIDCode(oid), c.ULIDCode(ulidtype.ULID{2})
	done := make(chan struct{})
	stopped := make(chan struct{}, 2)
	for g := 0; g < 2; g++ {
		go func() {
			defer func() { stopped <- struct{}{} }()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				d, err := NewCodec(NewKey(uint8(i%4), make([]byte, 24)))
				if err != nil {
					t.Error(err)
					return
				}
				d.ULIDCode(ulidtype.ULID{})
				if i%50 == 0 {
					runtime.GC()
				}
			}
		}()
	}
	for i := 0; i < 20000; i++ {
		if got := c.ObjectIDCode(oid); got != want {
			t.Fatalf("after %d: %s, want %s", i, got, want)
		}
		if got := c.ULIDCode(ulidtype.ULID{2}); got != wantU {
			t.Fatalf("after %d: %s, want %s", i, got, wantU)
		}
	}
	close(done)
	<-stopped
	<-stopped
}
