package typeid

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// specCase is one entry of the specification's valid.json or invalid.json
// (testdata/spec, see SOURCE there).
type specCase struct {
	Name        string `json:"name"`
	TypeID      string `json:"typeid"`
	Prefix      string `json:"prefix"`
	UUID        string `json:"uuid"`
	Description string `json:"description"`
}

func readSpec(t *testing.T, file string) []specCase {
	t.Helper()
	cases, err := loadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// loadSpec reads testdata/spec/file.
func loadSpec(file string) ([]specCase, error) {
	b, err := os.ReadFile("testdata/spec/" + file)
	if err != nil {
		return nil, err
	}
	var cases []specCase
	if err := json.Unmarshal(b, &cases); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, errors.New(file + ": no cases")
	}
	return cases, nil
}

type (
	emptyPrefix  struct{}
	prefixPrefix struct{}
	snakePrefix  struct{}
)

func (emptyPrefix) Prefix() string  { return "" }
func (prefixPrefix) Prefix() string { return "prefix" }
func (snakePrefix) Prefix() string  { return "pre_fix" }

// typedRoundTrip parses s as an ID of type P, and checks its UUID and that it
// writes s back.
func typedRoundTrip[P Prefix](t *testing.T, c specCase) {
	t.Helper()
	id, err := Parse[P](c.TypeID)
	if err != nil {
		t.Fatalf("%s: Parse[%T](%q): %v", c.Name, *new(P), c.TypeID, err)
	}
	if got := id.UUIDString(); got != c.UUID {
		t.Errorf("%s: UUID %s, want %s", c.Name, got, c.UUID)
	}
	var fromUUID ID[P]
	if err := fromUUID.Scan(c.UUID); err != nil {
		t.Fatalf("%s: Scan(%q): %v", c.Name, c.UUID, err)
	}
	if got := fromUUID.String(); got != c.TypeID {
		t.Errorf("%s: encoding %s gives %q, want %q", c.Name, c.UUID, got, c.TypeID)
	}
	if got, err := fromUUID.MarshalText(); err != nil || string(got) != c.TypeID {
		t.Errorf("%s: MarshalText = %q, %v", c.Name, got, err)
	}
}

// TestSpecValid: every valid TypeID of the specification decodes to its UUID
// with its prefix, and its UUID encodes to it, both through the prefix type
// and the runtime parser.
func TestSpecValid(t *testing.T) {
	for _, c := range readSpec(t, "valid.json") {
		anyRoundTrip(t, c)
		switch c.Prefix {
		case "":
			typedRoundTrip[emptyPrefix](t, c)
		case "prefix":
			typedRoundTrip[prefixPrefix](t, c)
		case "pre_fix":
			typedRoundTrip[snakePrefix](t, c)
		default:
			t.Errorf("%s: no prefix type for %q: add one", c.Name, c.Prefix)
		}
	}
}

// TestSpecInvalid: every invalid TypeID of the specification fails to parse,
// whatever prefix is expected: the one it appears to have (the text before
// its last '_', the most lenient choice), none, and "prefix"; each time with
// one of the package's sentinels.
func TestSpecInvalid(t *testing.T) {
	sentinels := []error{ErrPrefix, ErrWrongPrefix, ErrLength, ErrCharacter, ErrOverflow}
	for _, c := range readSpec(t, "invalid.json") {
		expect := []string{"", "prefix"}
		if i := strings.LastIndexByte(c.TypeID, '_'); i >= 0 {
			expect = append(expect, c.TypeID[:i])
		}
		for _, p := range expect {
			u, err := ParseWithPrefix(p, c.TypeID)
			if err == nil {
				t.Errorf("%s (%s): ParseWithPrefix(%q, %q) accepted it as %v", c.Name, c.Description, p, c.TypeID, u)
				continue
			}
			if !isSentinel(err, sentinels) || u != (AnyID{}) {
				t.Errorf("%s: ParseWithPrefix(%q, %q) = %v, %v: want a sentinel and no value", c.Name, p, c.TypeID, u, err)
			}
		}
		// The run-time path with any prefix, and its text unmarshaller.
		if u, err := ParseAny(c.TypeID); err == nil || !isSentinel(err, sentinels) || u != (AnyID{}) {
			t.Errorf("%s (%s): ParseAny(%q) = %v, %v: want a sentinel and no value", c.Name, c.Description, c.TypeID, u, err)
		}
		var a AnyID
		if err := a.UnmarshalText([]byte(c.TypeID)); err == nil || a != (AnyID{}) {
			t.Errorf("%s: AnyID.UnmarshalText(%q) = %v, %v", c.Name, c.TypeID, a, err)
		}
		if _, err := Parse[prefixPrefix](c.TypeID); err == nil {
			t.Errorf("%s: Parse[prefixPrefix](%q) accepted it", c.Name, c.TypeID)
		}
	}
}

// isSentinel reports whether err wraps one of sentinels.
func isSentinel(err error, sentinels []error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// anyRoundTrip checks the run-time path on a valid vector: ParseAny finds
// its prefix and UUID, ParseWithPrefix accepts it under its prefix, the
// UUID with the prefix writes it back, and FromAny of the right type agrees
// with Parse.
func anyRoundTrip(t *testing.T, c specCase) {
	t.Helper()
	a, err := ParseAny(c.TypeID)
	if err != nil || a.Prefix() != c.Prefix || a.UUIDString() != c.UUID || a.String() != c.TypeID {
		t.Errorf("%s: ParseAny(%q) = prefix %q uuid %s text %q, %v", c.Name, c.TypeID, a.Prefix(), a.UUIDString(), a.String(), err)
	}
	if w, err := ParseWithPrefix(c.Prefix, c.TypeID); err != nil || w != a {
		t.Errorf("%s: ParseWithPrefix(%q, %q) = %v, %v", c.Name, c.Prefix, c.TypeID, w, err)
	}
	var scanned AnyID
	if err := scanned.Scan(c.UUID); err != nil {
		t.Fatalf("%s: Scan(%q): %v", c.Name, c.UUID, err)
	}
	fromUUID, err := AnyFromUUID(c.Prefix, scanned.UUID())
	if err != nil || fromUUID != a {
		t.Errorf("%s: AnyFromUUID(%q, %s) = %v, %v", c.Name, c.Prefix, c.UUID, fromUUID, err)
	}
	if got, err := fromUUID.MarshalText(); err != nil || string(got) != c.TypeID {
		t.Errorf("%s: MarshalText = %q, %v", c.Name, got, err)
	}
	var back AnyID
	if err := back.UnmarshalText([]byte(c.TypeID)); err != nil || back != a {
		t.Errorf("%s: UnmarshalText = %v, %v", c.Name, back, err)
	}
	if id, err := FromAny[prefixPrefix](a); (err == nil) != (c.Prefix == "prefix") || err == nil && id.Any() != a {
		t.Errorf("%s: FromAny[prefixPrefix] = %v, %v", c.Name, id, err)
	}
}
