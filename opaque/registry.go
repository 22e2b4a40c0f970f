package opaque

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Secrets live outside the values users hold. A Key or a Codec holds a
// handle: an index into a package-level table, and a pointer to a small
// ref object whose only field is that index. Reflection-based dumpers that
// read unexported fields and follow pointers (go-spew, testify's failure
// messages, kr/pretty, litter) start from the value and so find the handle
// and nothing else; the table is reached only through this package's
// code. When the last copy of a Key or Codec is dropped, the ref becomes
// unreachable and a cleanup (runtime.AddCleanup) empties the slot, wiping
// what it can.

// pageSize is the number of slots of a table page.
const pageSize = 256

// table is a growable array of *T, indexed by handle. Reads are two atomic
// loads and take no lock; adding and releasing lock mu. Handle 0 is never
// given out: the zero Key and the zero Codec have it and find nil.
type table[T any] struct {
	mu    sync.Mutex
	pages atomic.Pointer[[]*[pageSize]atomic.Pointer[T]]
	next  uint32   // the next handle never used
	free  []uint32 // released handles, for reuse
}

// get returns the entry of h, or nil.
func (t *table[T]) get(h uint32) *T {
	p := t.pages.Load()
	if p == nil || int(h/pageSize) >= len(*p) {
		return nil
	}
	return (*p)[h/pageSize][h%pageSize].Load()
}

// add stores v and returns its handle.
func (t *table[T]) add(v *T) uint32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var h uint32
	if n := len(t.free); n > 0 {
		h, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if t.next == 0 {
			t.next = 1
		}
		h = t.next
		t.next++
	}
	var pages []*[pageSize]atomic.Pointer[T]
	if p := t.pages.Load(); p != nil {
		pages = *p
	}
	if int(h/pageSize) >= len(pages) {
		grown := append(pages[:len(pages):len(pages)], new([pageSize]atomic.Pointer[T]))
		t.pages.Store(&grown)
		pages = grown
	}
	pages[h/pageSize][h%pageSize].Store(v)
	return h
}

// release empties h's slot, returns what it held and makes h reusable.
func (t *table[T]) release(h uint32) *T {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pages.Load()
	if h == 0 || p == nil || int(h/pageSize) >= len(*p) {
		return nil
	}
	v := (*p)[h/pageSize][h%pageSize].Swap(nil)
	if v != nil {
		t.free = append(t.free, h)
	}
	return v
}

// len returns the number of live entries (for tests).
func (t *table[T]) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int(t.next) - len(t.free)
	if n > 0 {
		n-- // handle 0
	}
	return n
}

// handle is what a Key or a Codec points to: the index of its table entry.
// Its cleanup releases the entry once no copy of the Key or Codec is left.
type handle struct{ h uint32 }

var (
	keySecrets  table[[]byte]     // Key handles: the secret bytes
	codecStates table[codecState] // Codec handles: expanded keys
)

// newKeyHandle stores secret (not copied) and returns the handle of a new
// Key; dropping the last copy of the Key wipes and releases it.
func newKeyHandle(secret []byte) *handle {
	r := &handle{keySecrets.add(&secret)}
	runtime.AddCleanup(r, releaseKey, r.h)
	return r
}

func releaseKey(h uint32) {
	if s := keySecrets.release(h); s != nil {
		clear(*s)
	}
}

// newCodecHandle stores s and returns the handle of a new Codec.
func newCodecHandle(s *codecState) *handle {
	r := &handle{codecStates.add(s)}
	runtime.AddCleanup(r, releaseCodec, r.h)
	return r
}

// releaseCodec drops a Codec's expanded keys. FF1's block is wiped; the
// AES schedules inside crypto/aes's blocks cannot be, and go with the
// garbage collector.
func releaseCodec(h uint32) {
	if s := codecStates.release(h); s != nil {
		for _, k := range s.order {
			clear(k.p[:])
		}
	}
}
