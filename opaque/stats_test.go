package opaque

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
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
	oids := make([]objectidtype.ObjectID, statsN)
	objectidtype.Fill(oids)
	ocodes := make([]string, statsN)
	for i, id := range oids {
		ocodes[i] = c.ObjectIDCode(id)
	}
	ulids := make([]ulidtype.ULID, statsN)
	ulidtype.Fill(ulids)
	ucodes := make([]string, statsN)
	for i, id := range ulids {
		ucodes[i] = c.ULIDCode(id)
	}
	for _, k := range []struct {
		name     string
		codes    []string
		alphabet string
		skip     int // leading characters that are not random: the ULID key ID
	}{
		{"ObjectId", ocodes, objectidtype.ShortAlphabet, 0},
		{"ULID", ucodes, ulidtype.Alphabet, 1},
	} {
		rho := spearman(k.codes)
		t.Logf("%s: Spearman's rho between ID order and code order over %d consecutive IDs: %+.5f", k.name, statsN, rho)
		if math.Abs(rho) >= 0.01 {
			t.Errorf("%s: rho = %f, want |rho| < 0.01", k.name, rho)
		}
		worst, worstPos := 0.0, 0
		r := len(k.alphabet)
		for pos := k.skip; pos < len(k.codes[0]); pos++ {
			n := r
			counts := make(map[byte]int)
			for _, code := range k.codes {
				counts[code[pos]]++
			}
			exp := float64(statsN) / float64(n)
			chi := 0.0
			for i := 0; i < r; i++ {
				d := float64(counts[k.alphabet[i]]) - exp
				chi += d * d / exp
			}
			crit := chiCritical(n - 1)
			if chi/crit > worst {
				worst, worstPos = chi/crit, pos
			}
			if chi > crit {
				t.Errorf("%s position %d: chi2 = %.1f over %d degrees of freedom, critical %.1f", k.name, pos, chi, n-1, crit)
			}
		}
		t.Logf("%s: per-position character frequencies pass chi2 at p = 1e-4 (%d symbols, %d positions; worst position %d at %.2f of the critical value)",
			k.name, r, len(k.codes[0])-k.skip, worstPos, worst)
		// Consecutive codes sharing their first random character.
		shared := 0
		for i := 1; i < statsN; i++ {
			if k.codes[i][k.skip] == k.codes[i-1][k.skip] {
				shared++
			}
		}
		p := 1 / float64(r)
		want, sd := p*float64(statsN-1), math.Sqrt(p*(1-p)*float64(statsN-1))
		t.Logf("%s: consecutive codes sharing a first character: %d, random strings %.0f ± %.0f", k.name, shared, want, sd)
		if math.Abs(float64(shared)-want) > 5*sd {
			t.Errorf("%s: %d consecutive codes share a prefix, want %.0f ± %.0f", k.name, shared, want, 5*sd)
		}
	}
}

// spearman is the rank correlation between input order and sorted order.
func spearman(codes []string) float64 {
	idx := make([]int, len(codes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if codes[a] < codes[b] {
			return -1
		}
		if codes[a] > codes[b] {
			return 1
		}
		return 0
	})
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
	var buf [32]byte
	s := c.state().current
	// ObjectId: 96 bits through FF1.
	var oflips [96][96]int32
	for n := 0; n < avalancheN; n++ {
		a, b := rng.Uint64()&mask48, rng.Uint64()&mask48
		ea, eb := s.encrypt96(a, b, &buf)
		for j := 0; j < 96; j++ {
			fa, fb := a, b
			if j < 48 {
				fa ^= 1 << (47 - j)
			} else {
				fb ^= 1 << (95 - j)
			}
			xa, xb := s.encrypt96(fa, fb, &buf)
			xa ^= ea
			xb ^= eb
			for xa != 0 {
				k := 63 - bits.LeadingZeros64(xa)
				oflips[j][47-k]++
				xa &^= 1 << k
			}
			for xb != 0 {
				k := 63 - bits.LeadingZeros64(xb)
				oflips[j][95-k]++
				xb &^= 1 << k
			}
		}
	}
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
	var uflips [128][128]int32
	var in, base, out [16]byte
	for n := 0; n < avalancheN; n++ {
		for i := range in {
			in[i] = byte(rng.Uint32())
		}
		s.block.Encrypt(base[:], in[:])
		for j := 0; j < 128; j++ {
			in[j/8] ^= 0x80 >> (j % 8)
			s.block.Encrypt(out[:], in[:])
			in[j/8] ^= 0x80 >> (j % 8)
			for k := 0; k < 128; k++ {
				if (out[k/8]^base[k/8])&(0x80>>(k%8)) != 0 {
					uflips[j][k]++
				}
			}
		}
	}
	check("ULID (AES)", 128, 128, func(j, k int) int32 { return uflips[j][k] })
}
