// Command gensql writes the generated parts of the SQL function files,
// migrations/functions/*.sql: the byte tables, alphabets and the unrolled
// bit arithmetic of the text conversions, from the constants of packages
// ulidtype and objectidtype (ulidtype.Alphabet, objectidtype.ShortAlphabet);
// the wording of parse errors from package idtext; the SQLSTATEs of
// 05_partitions.sql from package sqlstate; and the list of the
// plpgsql functions of 05_partitions.sql whose settings it pins, from the
// file's own definitions (package sqlfunc).
// Each generated part sits between the lines
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

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/internal/sqlfunc"
	"github.com/pgid/pgid/internal/sqlstate"
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
	ulidRegions(r)
	objectIDRegions(r)
	typeIDRegions(r)
	r["parse_error_alphabets"] = parseErrorAlphabets()
	r["parse_error_wording"] = []string{
		"msg_char constant text := " + literal(idtext.MsgChar) + ";",
		"msg_overflow constant text := " + literal(idtext.MsgOverflow) + ";",
	}
	r["typeid_wording"] = typeIDWording()
	r["partition_plpgsql"] = partitionPLpgSQL()
	r["partition_sqlstates"] = sqlStates("05_partitions.sql")
	return r
}

// sqlStates lists, as comment lines, the SQLSTATEs of pgid's own that file
// raises (internal/sqlstate), each with its meaning, wrapped at 78
// characters.
func sqlStates(file string) []string {
	var lines []string
	for _, c := range sqlstate.Codes {
		if c.File != file {
			continue
		}
		m := c.Meaning
		if c.Warning {
			m = "(a WARNING) " + m
		}
		line := "--   " + c.Code + "  "
		for _, w := range strings.Fields(m) {
			if len(line)+1+len(w) > 78 && !strings.HasSuffix(line, "  ") {
				lines = append(lines, line)
				line = "--          "
			}
			if !strings.HasSuffix(line, "  ") {
				line += " "
			}
			line += w
		}
		lines = append(lines, line)
	}
	return lines
}

// partitionPLpgSQL lists, as the ARRAY of 05_partitions.sql's DO block that
// pins their settings, the names of the plpgsql functions that file
// defines, in the order it defines them (package sqlfunc reads them; the
// tests read them the same way).
func partitionPLpgSQL() []string {
	src, err := os.ReadFile(filepath.Join("functions", "05_partitions.sql"))
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, f := range sqlfunc.Parse(src) {
		if f.Language == "plpgsql" {
			names = append(names, "'"+f.Name+"'")
		}
	}
	if len(names) == 0 {
		log.Fatal("gensql: no plpgsql function in functions/05_partitions.sql")
	}
	var lines []string
	for len(names) > 0 {
		n := 0
		for w := 0; n < len(names) && w+len(names[n])+2 <= 100; n++ {
			w += len(names[n]) + 2
		}
		n = max(n, 1)
		line := strings.Join(names[:n], ", ")
		if names = names[n:]; len(names) > 0 {
			line += ","
		}
		lines = append(lines, line)
	}
	return lines
}

// encode returns the RETURN statement of a text encoder that reads n groups
// of bits bits, most significant first, from the bytes byteAt(i) (the value
// starts with lead zero bits), each looked up in the bytea table: at
// width*v+1, width characters for value v.
func encode(n, bits, lead int, byteAt func(int) string, table string, width int) []string {
	index := "(%s & %d) + 1"
	if width > 1 {
		index = fmt.Sprintf("%d * (%%s & %%d) + 1", width)
	}
	lines := []string{"RETURN encode("}
	for g := range n {
		end := bits*g + bits - 1 - lead // the group's last bit, from the top
		by, shift := end/8, 7-end%8
		word := byteAt(by)
		if (end-bits+1)/8 != by { // the group spans two bytes
			word = fmt.Sprintf("(%s << 8 | %s)", byteAt(by-1), byteAt(by))
		}
		if shift > 0 {
			word = fmt.Sprintf("(%s >> %d)", word, shift)
		}
		lead := "    "
		if g > 0 {
			lead = "    || "
		}
		lines = append(lines, lead+"substr("+table+",",
			fmt.Sprintf("           "+index+", %d)", word, 1<<bits-1, width))
	}
	lines[len(lines)-1] += ","
	return append(lines, "    'escape');")
}

// decode returns the statements of a text parser over n characters of
// bits bits (their table values val(i)), most significant first, the first
// lead bits zero: the validity check (invalid and firstShift as in
// validity), then RETURN of the value packed into words of wordBits[w] bits
// each, sent with int4send or int8send and cut to the word's bytes, joined,
// wrapped in open and close. The terms that stay below bit 31 are combined
// as int4 and cast to int8 once; only those shifted further are cast each.
func decode(n, bits, lead int, wordBits []int, invalid, firstShift int, open, close string) []string {
	lines := validity(n, invalid, firstShift)
	if open != "" {
		lines = append(lines, "  RETURN "+open)
	}
	lo := n*bits - lead // the lowest bit of the word before, from the bottom
	for w, size := range wordBits {
		lo -= size
		var wide, narrow []string // terms over int8 and over int4
		for i := range n {
			low := bits * (n - 1 - i) // character i's lowest bit, from the bottom
			if low+bits <= lo || low >= lo+size {
				continue
			}
			v, shift := val(i), low-lo
			if shift+bits > size && !(i == 0 && shift+bits-lead <= size) {
				// Cut to the word; not the first character, whose lead
				// bits the validity check found zero.
				v = fmt.Sprintf("(%s %s %d)", v, op("&"), 1<<(size-shift)-1)
			}
			switch {
			case shift < 0:
				narrow = append(narrow, fmt.Sprintf("(%s %s %d)", v, op(">>"), -shift))
			case shift+bits > 31:
				wide = append(wide, fmt.Sprintf("(%s::pg_catalog.int8 %s %d)", v, op("<<"), shift))
			case shift == 0:
				narrow = append(narrow, v)
			default:
				narrow = append(narrow, fmt.Sprintf("(%s %s %d)", v, op("<<"), shift))
			}
		}
		if len(wide) > 0 && len(narrow) > 0 {
			narrow[0] = "(" + narrow[0]
			narrow[len(narrow)-1] += ")::pg_catalog.int8"
		}
		terms := append(wide, narrow...)
		send, max := "pg_catalog.int4send(", 4
		if size > 32 {
			send, max = "pg_catalog.int8send(", 8
		}
		word, cut := send, ")"
		if bytes := size / 8; bytes < max {
			word, cut = "pg_catalog.substr("+send, fmt.Sprintf("), %d, %d)", max+1-bytes, bytes)
		}
		prefix := "    "
		switch {
		case w > 0:
			prefix += op("||") + " "
		case open == "":
			prefix = "  RETURN "
		}
		lines = append(lines, prefix+word, "        "+terms[0])
		for _, term := range terms[1:] {
			lines = append(lines, "        "+op("|")+" "+term)
		}
		lines[len(lines)-1] += cut
	}
	if close == "" {
		lines[len(lines)-1] += ";"
		return lines
	}
	return append(lines, close)
}

// ulidRegions generates the ULID text conversions: 26 characters of
// ulidtype.Alphabet, 5 bits each, the first two bits of the 130 zero.
func ulidRegions(r map[string][]string) {
	alpha := ulidtype.Alphabet
	// pgid._crockford_pairs(): the 1024 two-character strings, read by
	// ulid_to_text 10 bits at a time.
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
	r["ulid_to_text"] = encode(ulidTextLen/2, 10, 2, func(i int) string { return fmt.Sprintf("get_byte(uuid_send(id), %d)", i) },
		"pgid._crockford_pairs()", 2)
	r["crockford_values"] = table(alpha, true, crockfordInvalid)
	// Two int8 words: 13 characters and a half each.
	r["ulid_from_text"] = decode(ulidTextLen, 5, 2, []int{64, 64}, crockfordInvalid, 2, "pg_catalog.encode(",
		"  , 'hex')::pg_catalog.uuid;")
}

// objectIDRegions generates the ObjectId text conversions: 24 hex digits,
// and the short form, 16 characters of objectidtype.ShortAlphabet, 6 bits
// each, four characters to three bytes.
func objectIDRegions(r map[string][]string) {
	// Hex: decode() does the work once the digits are known valid.
	r["hex_values"] = table(hexDigits, true, hexInvalid)
	r["objectid_from_hex"] = append(validity(hexTextLen, hexInvalid, 0), "  RETURN pg_catalog.decode(s, 'hex');")
	short := objectidtype.ShortAlphabet
	r["short_alphabet"] = []string{fmt.Sprintf("RETURN '%s'::bytea;", short)}
	r["objectid_to_short"] = encode(shortTextLen, 6, 0, func(i int) string { return fmt.Sprintf("get_byte(id::pgid.objectid, %d)", i) },
		"pgid._short_alphabet()", 1)
	r["short_values"] = table(short, false, shortInvalid)
	r["objectid_from_short"] = decode(shortTextLen, 6, 0, []int{24, 24, 24, 24}, shortInvalid, 0, "", "")
}

// typeIDRegions generates the TypeID suffix checks from ulidtype.Alphabet
// in lower case: the characters pgid._typeid_error accepts and the pattern
// of pgid.typeid_uuid.
func typeIDRegions(r map[string][]string) {
	lower := strings.ToLower(ulidtype.Alphabet)
	r["typeid_suffix_chars"] = []string{fmt.Sprintf("suffix_chars constant text := '%s';", lower)}
	r["typeid_suffix_pattern"] = []string{
		fmt.Sprintf(`IF (suffix COLLATE pg_catalog."C") OPERATOR(pg_catalog.~) '^[%s][%s]{%d}$' THEN`,
			class(lower[:8]), class(lower), ulidTextLen-1)}
}

// class writes the characters of chars (in ascending order) as the inside
// of a regular expression bracket: runs of three or more as ranges.
func class(chars string) string {
	var b strings.Builder
	for i := 0; i < len(chars); {
		j := i
		for j+1 < len(chars) && chars[j+1] == chars[j]+1 {
			j++
		}
		if j-i >= 2 {
			fmt.Fprintf(&b, "%c-%c", chars[i], chars[j])
		} else {
			b.WriteString(chars[i : j+1])
		}
		i = j + 1
	}
	return b.String()
}

// parseErrorAlphabets is the CASE of pgid._parse_error that names, for each
// kind of text, the length and the characters it wants.
func parseErrorAlphabets() []string {
	alpha, short := ulidtype.Alphabet, objectidtype.ShortAlphabet
	return []string{
		"WHEN 'ulid' THEN",
		fmt.Sprintf("  what := 'ULID'; want_len := %d; want_len_text := '%d characters';", ulidTextLen, ulidTextLen),
		fmt.Sprintf("  chars := '%s%s';", alpha, strings.ToLower(strings.Trim(alpha, "0123456789"))),
		"  want_char := " + literal(idtext.Base32Want) + ";",
		"WHEN 'hex' THEN",
		fmt.Sprintf("  what := 'ObjectId'; want_len := %d; want_len_text := '%d hex digits';", hexTextLen, hexTextLen),
		fmt.Sprintf("  chars := '%s%s';", hexDigits, strings.ToUpper(hexDigits[10:])),
		"  want_char := " + literal(idtext.HexWant) + ";",
		"WHEN 'short' THEN",
		fmt.Sprintf("  what := 'ObjectId short form'; want_len := %d; want_len_text := '%d characters';", shortTextLen, shortTextLen),
		fmt.Sprintf("  chars := '%s';", short),
		"  want_char := " + literal(idtext.ShortWant) + ";",
	}
}

// typeIDWording declares, for pgid._typeid_error, the wording of Go's
// typeid.Parse errors (package idtext): formats for format() where Go has
// them for fmt.Sprintf.
func typeIDWording() []string {
	var lines []string
	for _, c := range []struct{ name, text string }{
		{"suffix_want", idtext.LowerBase32Want}, {"msg_char", idtext.MsgChar},
		{"msg_separator", idtext.TypeIDSeparator}, {"msg_too_long", idtext.TypeIDTooLong},
		{"msg_starts", idtext.TypeIDStarts}, {"msg_prefix_char", idtext.TypeIDPrefixChar},
		{"msg_ends", idtext.TypeIDEnds}, {"msg_no_prefix", idtext.TypeIDNoPrefix},
		{"msg_unwanted", idtext.TypeIDUnwanted}, {"msg_wrong_prefix", idtext.TypeIDWrongPrefix},
		{"msg_suffix_length", idtext.TypeIDSuffixLength}, {"msg_overflow", idtext.TypeIDOverflow},
	} {
		decl := c.name + " constant text := "
		if len(decl)+len(literal(c.text)) > 100 { // wrap would break the literal
			lines = append(lines, strings.TrimSpace(decl), "  "+literal(c.text)+";")
			continue
		}
		lines = append(lines, decl+literal(c.text)+";")
	}
	return lines
}

// literal writes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

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
		if i <= len(more) || strings.Count(line[:i], "'")%2 == 1 {
			break // nowhere to break, or only inside a literal
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
