package integration_test

import (
	"bytes"
	"crypto/aes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/davecgh/go-spew/spew"
	"github.com/kr/pretty"
	"github.com/rs/zerolog"
	"github.com/sanity-io/litter"
	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pgid/pgid/opaque"
)

// The holders a service's config might keep a key or a codec in.
type (
	dumpKeyHolder   struct{ key opaque.Key }
	dumpCodecHolder struct {
		name  string
		codec *opaque.Codec
	}
	dumpCodecValueHolder struct{ codec opaque.Codec }
)

// failRecorder is the testing.TB testify reports a failed assertion to.
type failRecorder struct{ out strings.Builder }

func (r *failRecorder) Errorf(format string, args ...any) { fmt.Fprintf(&r.out, format, args...) }

// testifySpew is the configuration testify's assert package dumps values
// with (spewConfig in testify's assert package).
var testifySpew = spew.ConfigState{
	Indent:                  " ",
	DisablePointerAddresses: true,
	DisableCapacities:       true,
	SortKeys:                true,
	DisableMethods:          true,
	MaxDepth:                10,
}

// dumperNeedles returns the ways the secret, FF1's constant block under the
// key, and AES's key schedule could show in a dump: 6-byte windows of the
// bytes raw, in hex (plain, spaced, 0x-listed, Go-quoted), as decimal
// lists and base64, and each 32-bit word of the expanded key schedule (both
// byte orders) in decimal and hex.
func dumperNeedles(t *testing.T, secret []byte) map[string]string {
	n := map[string]string{}
	block, err := aes.NewCipher(secret)
	if err != nil {
		t.Fatal(err)
	}
	// FF1's P for radix 64, 16 digits, no tweak, under the key.
	p := [16]byte{1, 2, 1, 0, 0, 64, 10, 8, 0, 0, 0, 16}
	var ciphP [16]byte
	block.Encrypt(ciphP[:], p[:])
	bytesNeedles := func(what string, b []byte) {
		for i := 0; i+6 <= len(b); i++ {
			w := b[i : i+6]
			at := what + " at byte " + strconv.Itoa(i)
			var dec, dec0x, decComma []string
			for _, c := range w {
				dec = append(dec, strconv.Itoa(int(c)))
				dec0x = append(dec0x, fmt.Sprintf("0x%02x", c))
				decComma = append(decComma, strconv.Itoa(int(c)))
			}
			n[string(w)] = "raw " + at
			n[hex.EncodeToString(w)] = "hex " + at
			n[fmt.Sprintf("% x", w)] = "spaced hex " + at
			n[strings.Join(dec0x, ", ")] = "0x list " + at
			n[strings.Join(dec, " ")] = "decimal list " + at
			n[strings.Join(decComma, ", ")] = "decimal list (commas) " + at
			n[strings.Join(decComma, ",")] = "decimal list (no spaces) " + at
			q := strconv.Quote(string(w))
			n[q[1:len(q)-1]] = "Go-quoted " + at
			if i%3 == 0 {
				n[base64.StdEncoding.EncodeToString(w)] = "base64 " + at
			}
		}
	}
	bytesNeedles("the secret", secret)
	bytesNeedles("the FF1 block", ciphP[:])
	// AES's round keys: the first Nk words are the secret itself; the rest
	// are derived from it. Build the schedule (FIPS 197, 5.2) and look for
	// every word, as crypto/aes may store it (big- or little-endian words).
	for i, w := range aesSchedule(secret) {
		for _, v := range []uint32{w, binary.LittleEndian.Uint32(binary.BigEndian.AppendUint32(nil, w))} {
			if v < 1<<20 { // too short to be telling
				continue
			}
			at := "key schedule word " + strconv.Itoa(i)
			n[strconv.FormatUint(uint64(v), 10)] = at + " (decimal)"
			n[fmt.Sprintf("0x%x", v)] = at + " (hex)"
		}
	}
	return n
}

// aesSchedule returns AES's expanded encryption key, 4×(rounds+1) words.
func aesSchedule(key []byte) []uint32 {
	nk := len(key) / 4
	rounds := nk + 6
	w := make([]uint32, 4*(rounds+1))
	for i := 0; i < nk; i++ {
		w[i] = binary.BigEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := nk; i < len(w); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			t = subWord(t<<8|t>>24) ^ rcon<<24
			rcon = xtime(rcon)
		case nk > 6 && i%nk == 4:
			t = subWord(t)
		}
		w[i] = w[i-nk] ^ t
	}
	return w
}

func xtime(b uint32) uint32 {
	b <<= 1
	if b&0x100 != 0 {
		b ^= 0x11b
	}
	return b
}

func subWord(w uint32) uint32 {
	return uint32(sbox(byte(w>>24)))<<24 | uint32(sbox(byte(w>>16)))<<16 | uint32(sbox(byte(w>>8)))<<8 | uint32(sbox(byte(w)))
}

// sbox computes AES's S-box: the inverse in GF(2^8), then the affine map.
func sbox(b byte) byte {
	inv := byte(0)
	if b != 0 {
		// b^254 is b's inverse.
		r, x := byte(1), b
		for e := 254; e > 0; e >>= 1 {
			if e&1 != 0 {
				r = gmul(r, x)
			}
			x = gmul(x, x)
		}
		inv = r
	}
	s := inv
	for i := 1; i <= 4; i++ {
		s ^= inv<<i | inv>>(8-i)
	}
	return s ^ 0x63
}

func gmul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// TestOpaqueDumpers dumps Keys, Codecs and structs holding them (in
// unexported fields) with the reflection-based dumpers and loggers tests
// and services use, testify's failure message among them, and finds
// neither the secret nor key material derived from it (AES's round keys,
// FF1's constant block) in any output. Every dumper here reads unexported
// fields and follows pointers, some through unsafe.
func TestOpaqueDumpers(t *testing.T) {
	if sbox(0) != 0x63 || sbox(0x53) != 0xed || aesSchedule(make([]byte, 16))[4] != 0x62636363 {
		t.Fatal("the test's AES key schedule is wrong")
	}
	for _, size := range []int{16, 24, 32} {
		sum := sha256.Sum256([]byte("TestOpaqueDumpers " + strconv.Itoa(size)))
		secret := sum[:size]
		k, _, err := opaque.ParseKeys("1:" + hex.EncodeToString(secret))
		if err != nil {
			t.Fatal(err)
		}
		c, err := opaque.NewCodec(k)
		if err != nil {
			t.Fatal(err)
		}
		// A second key and codec, for values to compare with.
		k2, _, err := opaque.ParseKeys("1:" + strings.Repeat("5a", size))
		if err != nil {
			t.Fatal(err)
		}
		c2, err := opaque.NewCodec(k2)
		if err != nil {
			t.Fatal(err)
		}
		subjects, others := dumpSubjects(k, c), dumpSubjects(k2, c2)
		dumpers := map[string]func(v, other any) string{
			"spew.Sdump (default)": func(v, _ any) string { return spew.Sdump(v) },
			"spew %+v (default)":   func(v, _ any) string { return spew.Sprintf("%+v", v) },
			"spew (testify's settings)": func(v, _ any) string {
				return testifySpew.Sdump(v)
			},
			"testify assert.Equal failure": func(v, other any) string {
				var r failRecorder
				assert.Equal(&r, v, other)
				return r.out.String()
			},
			"testify assert.Empty failure": func(v, _ any) string {
				var r failRecorder
				assert.Empty(&r, v)
				return r.out.String()
			},
			"kr/pretty Sprint": func(v, _ any) string { return pretty.Sprint(v) },
			"kr/pretty %# v":   func(v, _ any) string { return fmt.Sprintf("%# v", pretty.Formatter(v)) },
			"litter (default)": func(v, _ any) string { return litter.Sdump(v) },
			"litter (private fields)": func(v, _ any) string {
				return litter.Options{HidePrivateFields: false}.Sdump(v)
			},
			"fmt %+v %#v": func(v, _ any) string { return fmt.Sprintf("%+v %#v", v, v) },
			"zap Any, Reflect": func(v, _ any) string {
				var buf bytes.Buffer
				core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zap.DebugLevel)
				zap.New(core).Info("m", zap.Any("any", v), zap.Reflect("reflect", v))
				return buf.String()
			},
			"zerolog Interface": func(v, _ any) string {
				var buf bytes.Buffer
				l := zerolog.New(&buf)
				l.Info().Interface("v", v).Msg("m")
				return buf.String()
			},
			"logrus WithField": func(v, _ any) string {
				var buf bytes.Buffer
				for _, f := range []logrus.Formatter{&logrus.TextFormatter{DisableColors: true}, &logrus.JSONFormatter{}} {
					l := logrus.New()
					l.Out, l.Formatter = &buf, f
					l.WithField("v", v).Info("m")
				}
				return buf.String()
			},
		}
		needles := dumperNeedles(t, secret)
		var names, subjectNames []string
		for name := range dumpers {
			names = append(names, name)
		}
		for name := range subjects {
			subjectNames = append(subjectNames, name)
		}
		sort.Strings(names)
		sort.Strings(subjectNames)
		leaks := 0
		for _, dumper := range names {
			for _, subject := range subjectNames {
				out, panicked := dumpSafely(dumpers[dumper], subjects[subject], others[subject])
				if panicked != "" {
					t.Errorf("%d-byte key: %s of %s panicked: %s", size, dumper, subject, panicked)
					continue
				}
				if strings.Contains(out, "PANIC") {
					t.Errorf("%d-byte key: %s of %s shows a panic: %.300q", size, dumper, subject, out)
				}
				for needle, kind := range needles {
					if strings.Contains(out, needle) {
						leaks++
						t.Errorf("%d-byte key: %s of %s shows %s: %.300q", size, dumper, subject, kind, out)
						break
					}
				}
			}
		}
		if leaks > 0 {
			t.Errorf("%d-byte key: %d of %d dumper × value combinations show key material", size, leaks, len(names)*len(subjectNames))
		}
		// The key still works after all of that.
		if _, err := c.OpenULID(c.ULIDCode([16]byte{1})); err != nil {
			t.Error(err)
		}
	}
}

// dumpSafely runs dump, turning a panic into its message.
func dumpSafely(dump func(v, other any) string, v, other any) (out, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return dump(v, other), ""
}

// dumpSubjects returns Keys, Codecs and structs holding them in unexported
// fields, by name.
func dumpSubjects(k opaque.Key, c *opaque.Codec) map[string]any {
	return map[string]any{
		"Key":                   k,
		"*Key":                  &k,
		"Codec":                 *c,
		"*Codec":                c,
		"struct{key Key}":       dumpKeyHolder{k},
		"*struct{codec *Codec}": &dumpCodecHolder{"svc", c},
		"struct{codec Codec}":   dumpCodecValueHolder{*c},
	}
}
