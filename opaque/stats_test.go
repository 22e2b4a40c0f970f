package opaque

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// fixedKey is the key of the statistical tests: with it and a fixed
// random source their results are the same on every run, so a bound a few
// standard deviations wide cannot fail by chance one run in a hundred.
func fixedKey(id uint8) Key {
	return NewKey(id, []byte("pgid opaque statistics key, 32B!"))
}

// skipUnderRace skips the statistical tests in the race detector's run
// (tens of millions of permutations); .ci/run runs them without it.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("statistics run without -race (.ci/run)")
	}
}

// statsN is how many consecutive IDs the statistics use.
const statsN = 1_000_000

// TestCodeStatistics: over 1,000,000 consecutive IDs from Fill, code order
// says nothing of ID order (Spearman's rank correlation), every character
// position is uniform (χ² at p = 1e-4), and consecutive codes share a
// prefix as often as random strings do, for both kinds of code.
func TestCodeStatistics(t *testing.T) {
	skipUnderRace(t)
	c := mustCodec(t, fixedKey(0))
	for _, k := range []struct {
		name     string
		codes    func() []string
		alphabet string
		skip     int // leading characters that are not random: the ULID key ID
	}{
		{"ObjectId", func() []string { return codesOf(objectidtype.Fill, c.ObjectIDCode) }, objectidtype.ShortAlphabet, 0},
		{"ULID", func() []string { return codesOf(ulidtype.Fill, c.ULIDCode) }, ulidtype.Alphabet, 1},
	} {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			codeStatistics(t, k.name, k.codes(), k.alphabet, k.skip)
		})
	}
}

// codesOf returns the codes of statsN consecutive IDs from fill.
func codesOf[ID any](fill func([]ID), code func(ID) string) []string {
	ids := make([]ID, statsN)
	fill(ids)
	codes := make([]string, statsN)
	for i, id := range ids {
		codes[i] = code(id)
	}
	return codes
}

// codeStatistics is TestCodeStatistics for one kind of code: codes of
// consecutive IDs, in alphabet, random after their first skip characters.
func codeStatistics(t *testing.T, name string, codes []string, alphabet string, skip int) {
	rho := spearman(codes)
	t.Logf("%s: Spearman's rho between ID order and code order over %d consecutive IDs: %+.5f", name, statsN, rho)
	if math.Abs(rho) >= 0.01 {
		t.Errorf("%s: rho = %f, want |rho| < 0.01", name, rho)
	}
	worst, worstPos := 0.0, 0
	r := len(alphabet)
	for pos := skip; pos < len(codes[0]); pos++ {
		var counts [256]int
		for _, code := range codes {
			counts[code[pos]]++
		}
		exp := float64(statsN) / float64(r)
		chi := 0.0
		for i := 0; i < r; i++ {
			d := float64(counts[alphabet[i]]) - exp
			chi += d * d / exp
		}
		crit := chiCritical(r - 1)
		if chi/crit > worst {
			worst, worstPos = chi/crit, pos
		}
		if chi > crit {
			t.Errorf("%s position %d: chi2 = %.1f over %d degrees of freedom, critical %.1f", name, pos, chi, r-1, crit)
		}
	}
	t.Logf("%s: per-position character frequencies pass chi2 at p = 1e-4 (%d symbols, %d positions; worst position %d at %.2f of the critical value)",
		name, r, len(codes[0])-skip, worstPos, worst)
	// Consecutive codes sharing their first random character.
	shared := 0
	for i := 1; i < statsN; i++ {
		if codes[i][skip] == codes[i-1][skip] {
			shared++
		}
	}
	p := 1 / float64(r)
	want, sd := p*float64(statsN-1), math.Sqrt(p*(1-p)*float64(statsN-1))
	t.Logf("%s: consecutive codes sharing a first character: %d, random strings %.0f ± %.0f", name, shared, want, sd)
	if math.Abs(float64(shared)-want) > 5*sd {
		t.Errorf("%s: %d consecutive codes share a prefix, want %.0f ± %.0f", name, shared, want, 5*sd)
	}
}

// spearman is the rank correlation between input order and sorted order.
func spearman(codes []string) float64 {
	idx := make([]int, len(codes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(codes[a], codes[b]) })
	n := float64(len(codes))
	var d2 float64
	for rank, i := range idx {
		d := float64(rank - i)
		d2 += d * d
	}
	return 1 - 6*d2/(n*(n*n-1))
}

// chiCritical is the chi2 value exceeded with probability 1e-4 at k
// degrees of freedom (Wilson–Hilferty).
func chiCritical(k int) float64 {
	const z = 3.719 // the normal quantile of 1 - 1e-4
	f := float64(k)
	h := 2 / (9 * f)
	return f * math.Pow(1-h+z*math.Sqrt(h), 3)
}

// TestAvalanche: flipping any single input bit flips each output bit with
// probability 0.5 ± 0.01, for every (input bit, output bit) pair, over
// avalancheN random inputs (so ±0.01 is 5 standard deviations).
func TestAvalanche(t *testing.T) {
	const avalancheN = 62_500
	skipUnderRace(t)
	c := mustCodec(t, fixedKey(0))
	rng := rand.New(rand.NewPCG(1, 2))
	s := c.state().current
	// The random inputs first, in the order the source gives them; then
	// the input bits are shared out among the CPUs, each flipping its own
	// bits of every input, so the counts do not depend on how many there are.
	oin := make([][2]uint64, avalancheN)
	for n := range oin {
		oin[n] = [2]uint64{rng.Uint64() & mask48, rng.Uint64() & mask48}
	}
	uin := make([][16]byte, avalancheN)
	for n := range uin {
		for i := range uin[n] {
			uin[n][i] = byte(rng.Uint32())
		}
	}
	// ObjectId: 96 bits through FF1.
	var buf [32]byte
	oenc := make([][2]uint64, avalancheN)
	for n, in := range oin {
		oenc[n][0], oenc[n][1] = s.encrypt96(in[0], in[1], &buf)
	}
	var oflips [96][96]int32
	eachBit(96, func(j int) {
		var buf [32]byte
		for n, in := range oin {
			a, b := in[0], in[1]
			ea, eb := oenc[n][0], oenc[n][1]
			if j < 48 {
				a ^= 1 << (47 - j)
			} else {
				b ^= 1 << (95 - j)
			}
			xa, xb := s.encrypt96(a, b, &buf)
			countBits(oflips[j][:], 47, xa^ea)
			countBits(oflips[j][:], 95, xb^eb)
		}
	})
	check := func(name string, in, out int, count func(j, k int) int32) {
		lo, hi := 1.0, 0.0
		for j := 0; j < in; j++ {
			for k := 0; k < out; k++ {
				p := float64(count(j, k)) / avalancheN
				lo, hi = min(lo, p), max(hi, p)
				if math.Abs(p-0.5) > 0.01 {
					t.Errorf("%s: flipping input bit %d flips output bit %d with probability %.4f", name, j, k, p)
				}
			}
		}
		t.Logf("%s: over %d random inputs, each of %d input bits flips each of %d output bits with probability %.4f to %.4f", name, avalancheN, in, out, lo, hi)
	}
	check("ObjectId (FF1)", 96, 96, func(j, k int) int32 { return oflips[j][k] })

	// ULID: 128 bits through AES.
	uenc := make([][16]byte, avalancheN)
	for n, in := range uin {
		s.block.Encrypt(uenc[n][:], in[:])
	}
	var uflips [128][128]int32
	eachBit(128, func(j int) {
		var out [16]byte
		for n, in := range uin {
			base := &uenc[n]
			in[j/8] ^= 0x80 >> (j % 8)
			s.block.Encrypt(out[:], in[:])
			countBits(uflips[j][:], 63, binary.BigEndian.Uint64(out[:8])^binary.BigEndian.Uint64(base[:8]))
			countBits(uflips[j][:], 127, binary.BigEndian.Uint64(out[8:])^binary.BigEndian.Uint64(base[8:]))
		}
	})
	check("ULID (AES)", 128, 128, func(j, k int) int32 { return uflips[j][k] })
}

// eachBit calls f for each input bit j < n, on as many goroutines as
// there are CPUs; f writes only what belongs to j.
func eachBit(n int, f func(j int)) {
	var wg sync.WaitGroup
	next := atomic.Int32{}
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := int(next.Add(1)) - 1; j < n; j = int(next.Add(1)) - 1 {
				f(j)
			}
		})
	}
	wg.Wait()
}

// countBits adds 1 to flips[last-k] for each set bit k of x: x's most
// significant bit is output bit last-63.
func countBits(flips []int32, last int, x uint64) {
	for x != 0 {
		k := 63 - bits.LeadingZeros64(x)
		flips[last-k]++
		x &^= 1 << k
	}
}
