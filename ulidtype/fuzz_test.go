package ulidtype

import (
	"encoding/json"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.base32)
		f.Add(strings.ToLower(v.base32))
		f.Add(v.uuid)
		f.Add(strings.ReplaceAll(v.uuid, "-", ""))
	}
	for _, m := range malformed {
		f.Add(m.in)
	}
}

// checkAccepted asserts what every accepted input must satisfy: its length is
// one of the forms, and the value round-trips through every form.
func checkAccepted(t *testing.T, in string, u ULID) {
	t.Helper()
	switch len(in) {
	case 26:
		if !strings.EqualFold(in, u.String()) {
			t.Fatalf("%q parsed as %s", in, u)
		}
	case 36:
		if !strings.EqualFold(in, u.UUIDString()) {
			t.Fatalf("%q parsed as %s", in, u.UUIDString())
		}
	case 32:
		if !strings.EqualFold(in, strings.ReplaceAll(u.UUIDString(), "-", "")) {
			t.Fatalf("%q parsed as %s", in, u.UUIDString())
		}
	default:
		t.Fatalf("accepted %q of length %d", in, len(in))
	}
	for _, s := range []string{u.String(), u.UUIDString()} {
		if v, err := Parse(s); err != nil || v != u {
			t.Fatalf("round trip of %q via %q: %v, %v", in, s, v, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		u, err := Parse(in)
		if err != nil {
			if !u.IsZero() || err.Error() == "" {
				t.Fatalf("Parse(%q) = %v with error %v", in, u, err)
			}
			return
		}
		checkAccepted(t, in, u)
	})
}

func FuzzUnmarshalText(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
		u := orig
		if err := u.UnmarshalText([]byte(in)); err != nil {
			if u != orig {
				t.Fatalf("failed UnmarshalText(%q) changed the value", in)
			}
			return
		}
		checkAccepted(t, in, u)
		text, _ := u.MarshalText()
		var v ULID
		if err := v.UnmarshalText(text); err != nil || v != u {
			t.Fatalf("MarshalText round trip: %v %v", v, err)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	addSeeds(f)
	f.Add(`"01GFGGMBFGB5WKXBN7S84ATRDG"`)
	f.Add(`null`)
	f.Add(`"\u0030\u0031GFGGMBFGB5WKXBN7S84ATRDG"`)
	f.Fuzz(func(t *testing.T, in string) {
		orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
		u := orig
		errU := u.UnmarshalJSON([]byte(in))
		if in == "null" {
			// As encoding/json treats null for a non-pointer value.
			if errU != nil || u != orig {
				t.Fatalf("null: %v, %v; want no error and no change", u, errU)
			}
			return
		}
		if errU != nil && u != orig {
			t.Fatalf("failed UnmarshalJSON(%q) changed the value to %s", in, u)
		}
		n := NullULID{ULID: orig, Valid: true}
		errN := n.UnmarshalJSON([]byte(in))
		if errN != nil && n != (NullULID{ULID: orig, Valid: true}) {
			t.Fatalf("failed NullULID.UnmarshalJSON(%q) changed the value to %+v", in, n)
		}
		if (errN == nil) != (errU == nil) && in != "null" {
			t.Fatalf("ULID and NullULID disagree on %q: %v / %v", in, errU, errN)
		}
		// What is accepted must be what encoding/json reads as a string.
		var s string
		if errU == nil {
			if err := json.Unmarshal([]byte(in), &s); err != nil {
				t.Fatalf("accepted %q, which is not a JSON string: %v", in, err)
			}
			checkAccepted(t, s, u)
			js, _ := json.Marshal(u)
			var v ULID
			if err := json.Unmarshal(js, &v); err != nil || v != u {
				t.Fatalf("JSON round trip: %v %v", v, err)
			}
		}
	})
}

func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Add(string(MustParse("01GFGGMBFGB5WKXBN7S84ATRDG").Bytes()))
	f.Fuzz(func(t *testing.T, in string) {
		orig := MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
		fromString, fromBytes := orig, orig
		errS := fromString.Scan(in)
		errB := fromBytes.Scan([]byte(in))
		if errS != nil && fromString != orig || errB != nil && fromBytes != orig {
			t.Fatalf("failed Scan(%q) changed the value: %s / %s", in, fromString, fromBytes)
		}
		if len(in) == 16 {
			// Raw bytes: every 16-byte []byte is a ULID; a 16-char string never.
			if errB != nil || string(fromBytes[:]) != in || errS == nil {
				t.Fatalf("16 bytes %q: []byte %v, string %v", in, errB, errS)
			}
			return
		}
		if (errS == nil) != (errB == nil) || fromString != fromBytes {
			t.Fatalf("string and []byte disagree on %q: %v / %v", in, errS, errB)
		}
		if errS == nil {
			checkAccepted(t, in, fromString)
			v, _ := fromString.Value()
			var back ULID
			if err := back.Scan(v); err != nil || back != fromString {
				t.Fatalf("Scan(Value()) round trip: %v %v", back, err)
			}
		}
	})
}
