// Package testclock holds the test doubles the generator tests of ulidtype and
// objectidtype share: a settable clock that counts its reads, and entropy
// sources that repeat one byte, fail, or run dry.
//
// It is internal and meant for tests only.
package testclock

import (
	"errors"
	"sync"
	"time"
)

// Clock is a settable clock, safe for concurrent use. Its Now method is what
// a generator takes as its clock.
type Clock struct {
	mu    sync.Mutex
	t     time.Time
	reads int
}

// New returns a Clock that reads t until it is set or advanced.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time and counts the read.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.t
}

// Set makes the clock read t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Add moves the clock by d, which may be negative.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Reads returns how often Now has been called since the last ResetReads.
func (c *Clock) Reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// ResetReads sets the read count to zero.
func (c *Clock) ResetReads() {
	c.mu.Lock()
	c.reads = 0
	c.mu.Unlock()
}

// ConstReader is an endless entropy source of one byte value.
type ConstReader byte

// Read fills p with the byte r; it never fails.
func (r ConstReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// ErrEntropy is the error FailingReader returns.
var ErrEntropy = errors.New("testclock: entropy source down")

// FailingReader is an entropy source that always fails with [ErrEntropy].
type FailingReader struct{}

// Read returns 0 and [ErrEntropy].
func (FailingReader) Read([]byte) (int, error) { return 0, ErrEntropy }
