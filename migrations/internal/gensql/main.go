// Command gensql writes the generated parts of the SQL function files,
// migrations/functions/*.sql: the byte tables, alphabets and the unrolled
// bit arithmetic of the text conversions, from the constants of packages
// ulidtype and objectidtype. Each generated part sits between the lines
//
//	-- BEGIN GENERATED name (go generate ./migrations)
//	-- END GENERATED name
//
// and is rewritten in place, indented as its BEGIN line; the rest of each
// file is written by hand. Run it with go generate ./migrations; CI runs it
// and fails if the files change.
package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// Text form lengths and the marker value of each decoding table for a
// byte outside the alphabet (one more than the largest value, so that
// OR-ing the values of all characters tells whether one was invalid).
const (
	ulidTextLen  = 26 // Crockford base32 characters of a ULID
	hexTextLen   = 24 // hex digits of an ObjectId
	shortTextLen = 16 // short-form characters of an ObjectId

	crockfordInvalid = 32 // 5-bit values: 0..31
	hexInvalid       = 16 // 4-bit values: 0..15
	shortInvalid     = 64 // 6-bit values: 0..63

	hexDigits = "0123456789abcdef"
)

// op writes a pg_catalog operator the way plpgsql bodies must: qualified,
// so that no schema on the caller's search_path can redirect it.
func op(o string) string { return "OPERATOR(pg_catalog." + o + ")" }

// val is the table value of the character at 0-based position i of b.
func val(i int) string { return fmt.Sprintf("pg_catalog.get_byte(t, pg_catalog.get_byte(b, %d))", i) }

// table returns a 256-byte decoding table as an escaped bytea literal
// spread over 8 lines of 32 bytes: the value of each byte in alphabet
// (case-insensitively if fold), invalid elsewhere.
func table(alphabet string, fold bool, invalid byte) []string {
	var t [256]byte
	for i := range t {
		t[i] = invalid
	}
	for v := range len(alphabet) {
		c := alphabet[v]
		t[c] = byte(v)
		if fold {
			t[bytes.ToLower([]byte{c})[0]] = byte(v)
			t[bytes.ToUpper([]byte{c})[0]] = byte(v)
		}
	}
	var lines []string
	for i := 0; i < 256; i += 32 {
		h := fmt.Sprintf("%x", t[i:i+32])
		if i == 0 {
			lines = append(lines, `t constant pg_catalog.bytea := E'\\x`+h+`'`)
		} else {
			lines = append(lines, `  '`+h+`'`)
		}
	}
	lines[len(lines)-1] += ";"
	return lines
}

// validity returns the IF line that accepts n characters all in the table:
// the OR of their values stays below invalid. With firstShift, the first
// value is shifted left first (a ULID's first character may be at most 7).
func validity(n, invalid, firstShift int) []string {
	first := val(0)
	if firstShift > 0 {
		first = fmt.Sprintf("(%s %s %d)", val(0), op("<<"), firstShift)
	}
	lines := []string{"IF (" + first}
	for i := 1; i < n; i++ {
		lines = append(lines, "    "+op("|")+" "+val(i))
	}
	lines[len(lines)-1] += fmt.Sprintf(") %s %d THEN", op("<"), invalid)
	return lines
}

// regions returns the generated text of every region, by name.
func regions() map[string][]string {
	r := map[string][]string{}

	// ULID text: 13 groups of 10 bits (2 leading zero bits), looked up in
	// pgid._crockford_pairs(), the 1024 two-character strings.
	alpha := ulidtype.Alphabet
	pairs := []string{"RETURN ("}
	for hi := range len(alpha) {
		var line strings.Builder
		for lo := range len(alpha) {
			line.WriteByte(alpha[hi])
			line.WriteByte(alpha[lo])
		}
		pairs = append(pairs, "  '"+line.String()+"'")
	}
	pairs[len(pairs)-1] += ")::bytea;"
	r["crockford_pairs"] = pairs

	toText := []string{"RETURN encode("}
	for g := range 13 {
		end := 10*g + 7 // the group's last bit, in the 128-bit value
		by, shift := end/8, 7-end%8
		word := fmt.Sprintf("get_byte(uuid_send(id), %d)", by)
		if by > 0 && g > 0 {
			word = fmt.Sprintf("(get_byte(uuid_send(id), %d) << 8 | get_byte(uuid_send(id), %d))", by-1, by)
		}
		if shift > 0 {
			word = fmt.Sprintf("(%s >> %d)", word, shift)
		}
		lead := "    "
		if g > 0 {
			lead = "    || "
		}
		toText = append(toText, lead+"substr(pgid._crockford_pairs(),",
			fmt.Sprintf("           2 * (%s & 1023) + 1, 2)", word))
	}
	toText[len(toText)-1] += ","
	toText = append(toText, "    'escape');")
	r["ulid_to_text"] = toText

	r["crockford_values"] = table(alpha, true, crockfordInvalid)
	parse := validity(ulidTextLen, crockfordInvalid, 2)
	// 26 characters of 5 bits: 130 bits, the top two zero. The first 13
	// characters and a half fill the first 8 bytes, the rest the next 8.
	parse = append(parse, "  RETURN pg_catalog.encode(")
	for half := range 2 {
		var terms []string
		for i := range ulidTextLen {
			// Character i holds bits [5i-2, 5i+3) of the 128-bit value;
			// its lowest bit is bit 127-(5(25-i)) counted from the top.
			low := 5 * (25 - i) // position of its lowest bit, from the bottom
			lo, hi := 64*(1-half), 64*(2-half)
			if low+5 <= lo || low >= hi {
				continue
			}
			v := val(i) + "::pg_catalog.int8"
			switch shift := low - lo; {
			case shift < 0:
				terms = append(terms, fmt.Sprintf("(%s %s %d)", v, op(">>"), -shift))
			case shift+5 > 64 && half == 1:
				terms = append(terms, fmt.Sprintf("((%s %s %d) %s %d)", v, op("&"), (1<<(64-shift))-1, op("<<"), shift))
			case shift == 0:
				terms = append(terms, v)
			default:
				terms = append(terms, fmt.Sprintf("(%s %s %d)", v, op("<<"), shift))
			}
		}
		prefix := "    pg_catalog.int8send("
		if half == 1 {
			prefix = "    " + op("||") + " pg_catalog.int8send("
		}
		parse = append(parse, prefix, "      "+terms[0])
		for _, term := range terms[1:] {
			parse = append(parse, "      "+op("|")+" "+term)
		}
		parse[len(parse)-1] += ")"
	}
	parse = append(parse, "  , 'hex')::pg_catalog.uuid;")
	r["ulid_from_text"] = parse

	// ObjectId hex: decode() does the work once the digits are known valid.
	r["hex_values"] = table(hexDigits, true, hexInvalid)
	r["objectid_from_hex"] = append(validity(hexTextLen, hexInvalid, 0), "  RETURN pg_catalog.decode(s, 'hex');")

	// ObjectId short form: 16 groups of 6 bits, four characters per 3 bytes.
	short := objectidtype.ShortAlphabet
	r["short_alphabet"] = []string{fmt.Sprintf("RETURN '%s'::bytea;", short)}
	toShort := []string{"RETURN encode("}
	for g := range shortTextLen {
		end := 6*g + 5
		by, shift := end/8, 7-end%8
		word := fmt.Sprintf("get_byte(id::pgid.objectid, %d)", by)
		if (end-5)/8 != by {
			word = fmt.Sprintf("(get_byte(id::pgid.objectid, %d) << 8 | get_byte(id::pgid.objectid, %d))", by-1, by)
		}
		if shift > 0 {
			word = fmt.Sprintf("(%s >> %d)", word, shift)
		}
		lead := "    "
		if g > 0 {
			lead = "    || "
		}
		toShort = append(toShort, lead+"substr(pgid._short_alphabet(),",
			fmt.Sprintf("           (%s & 63) + 1, 1)", word))
	}
	toShort[len(toShort)-1] += ","
	toShort = append(toShort, "    'escape');")
	r["objectid_to_short"] = toShort

	r["short_values"] = table(short, false, shortInvalid)
	fromShort := validity(shortTextLen, shortInvalid, 0)
	for w := range 4 {
		c := 4 * w
		prefix := "  RETURN "
		if w > 0 {
			prefix = "    " + op("||") + " "
		}
		fromShort = append(fromShort, prefix+"pg_catalog.substr(pg_catalog.int4send(",
			fmt.Sprintf("        (%s %s 18)", val(c), op("<<")),
			fmt.Sprintf("        %s (%s %s 12)", op("|"), val(c+1), op("<<")),
			fmt.Sprintf("        %s (%s %s 6)", op("|"), val(c+2), op("<<")),
			fmt.Sprintf("        %s %s), 2, 3)", op("|"), val(c+3)))
	}
	fromShort[len(fromShort)-1] += ";"
	r["objectid_from_short"] = fromShort

	// pgid._parse_error names the first character outside each alphabet.
	r["parse_error_alphabets"] = []string{
		"WHEN 'ulid' THEN",
		fmt.Sprintf("  what := 'ULID'; want_len := %d; want_len_text := '%d characters';", ulidTextLen, ulidTextLen),
		fmt.Sprintf("  chars := '%s%s';", alpha, strings.ToLower(strings.Trim(alpha, "0123456789"))),
		"  want_char := 'a Crockford base32 character (0-9, A-Z without I, L, O, U)';",
		"WHEN 'hex' THEN",
		fmt.Sprintf("  what := 'ObjectId'; want_len := %d; want_len_text := '%d hex digits';", hexTextLen, hexTextLen),
		fmt.Sprintf("  chars := '%s%s';", hexDigits, strings.ToUpper(hexDigits[10:])),
		"  want_char := 'a hex digit';",
		"WHEN 'short' THEN",
		fmt.Sprintf("  what := 'ObjectId short form'; want_len := %d; want_len_text := '%d characters';", shortTextLen, shortTextLen),
		fmt.Sprintf("  chars := '%s';", short),
		"  want_char := 'one of 0-9 a-z A-Z - _';",
	}
	return r
}

// maxLine is the longest line the SQL files may have.
const maxLine = 120

// wrap breaks line before its last " OPERATOR(" (or else its last space)
// that leaves a head of at most max characters, as often as needed; the
// continuation lines are indented four more than line.
func wrap(line string, max int) []string {
	var out []string
	more := line[:len(line)-len(strings.TrimLeft(line, " "))] + "    "
	for len(line) > max {
		i := strings.LastIndex(line[:min(len(line), max+len(" OPERATOR("))], " OPERATOR(")
		if i <= len(more) {
			// No operator to break before: the last space (generated
			// lines have none inside a literal).
			i = strings.LastIndex(line[:max+1], " ")
		}
		if i <= len(more) {
			break
		}
		out = append(out, line[:i])
		line = more + line[i+1:]
	}
	return append(out, line)
}

var region = regexp.MustCompile(`(?m)^([ \t]*)-- BEGIN GENERATED ([a-z_]+) \(go generate ./migrations\)\n(?s:.*?)^[ \t]*-- END GENERATED ([a-z_]+)\n`)

func main() {
	gen := regions()
	files, err := filepath.Glob(filepath.Join("functions", "*.sql"))
	if err != nil || len(files) == 0 {
		log.Fatalf("gensql: run in migrations/ (go generate ./migrations): %v", err)
	}
	used := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		var bad error
		out := region.ReplaceAllFunc(b, func(m []byte) []byte {
			s := region.FindSubmatch(m)
			indent, name, end := string(s[1]), string(s[2]), string(s[3])
			lines, ok := gen[name]
			if !ok || name != end {
				bad = fmt.Errorf("%s: region %q (ends %q) unknown or unbalanced", f, name, end)
				return m
			}
			used[name] = true
			var w strings.Builder
			fmt.Fprintf(&w, "%s-- BEGIN GENERATED %s (go generate ./migrations)\n", indent, name)
			for _, l := range lines {
				for _, l := range wrap(indent+l, maxLine) {
					w.WriteString(l + "\n")
				}
			}
			fmt.Fprintf(&w, "%s-- END GENERATED %s\n", indent, name)
			return []byte(w.String())
		})
		if bad != nil {
			log.Fatal(bad)
		}
		if !bytes.Equal(out, b) {
			if err := os.WriteFile(f, out, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	for name := range gen {
		if !used[name] {
			log.Fatalf("gensql: no region %q in functions/*.sql", name)
		}
	}
}
