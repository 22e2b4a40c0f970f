package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// timeFormat is how times are printed: RFC 3339, UTC, milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func fmtTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ---- new

func cmdNew(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "new")
	n := fs.Int("n", 1, "how many IDs")
	format := fs.String("format", "text", "text (ULID base32, ObjectId hex), uuid (ULID), hex, short (ObjectId) or json (an array of the text forms)")
	asJSON := fs.Bool("json", false, "same as --format json")
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one kind, ulid or objectid; got %d arguments", len(pos))
	}
	kind := pos[0]
	if *asJSON {
		*format = "json"
	}
	if *n < 1 {
		return usagef("-n %d: want at least 1", *n)
	}
	var enc func(b []byte, i int) []byte
	var fill func(from, to int)
	switch kind {
	case "ulid":
		if err := oneOf("format", *format, "text", "uuid", "hex", "json"); err != nil {
			return err
		}
		ids := make([]ulidtype.ULID, min(*n, 4096))
		fill = func(from, to int) { ulidtype.Fill(ids[:to-from]) }
		enc = func(b []byte, i int) []byte {
			switch *format {
			case "uuid":
				return append(b, ids[i].UUIDString()...)
			case "hex":
				return hex.AppendEncode(b, ids[i][:])
			}
			b, _ = ids[i].AppendText(b)
			return b
		}
	case "objectid":
		if err := oneOf("format", *format, "text", "hex", "short", "json"); err != nil {
			return err
		}
		ids := make([]objectidtype.ObjectID, min(*n, 4096))
		fill = func(from, to int) { objectidtype.Fill(ids[:to-from]) }
		enc = func(b []byte, i int) []byte {
			if *format == "short" {
				return append(b, ids[i].Short()...)
			}
			b, _ = ids[i].AppendText(b)
			return b
		}
	default:
		return usagef("unknown kind %q: want ulid or objectid", kind)
	}

	// Fill makes a batch with one clock read; a few thousand at a time keep
	// memory flat for any -n.
	w := bufio.NewWriter(e.stdout)
	var line []byte
	if *format == "json" {
		w.WriteString("[")
	}
	for from := 0; from < *n; from += 4096 {
		to := min(from+4096, *n)
		fill(from, to)
		for i := 0; i < to-from; i++ {
			line = line[:0]
			if *format == "json" {
				if from+i > 0 {
					line = append(line, ',')
				}
				line = append(line, "\n  \""...)
				line = append(enc(line, i), '"')
			} else {
				line = append(enc(line, i), '\n')
			}
			w.Write(line)
		}
	}
	if *format == "json" {
		w.WriteString("\n]\n")
	}
	return w.Flush()
}

// ---- inspect

// idInfo is what inspect prints about one ID.
type idInfo struct {
	Input  string            `json:"input"`
	Kind   string            `json:"kind"` // ulid, objectid, or uuid (an RFC 9562 UUID other than v7)
	Form   string            `json:"form"` // the input's form: ulid, uuid, hex, short
	Time   string            `json:"time,omitempty"`
	Unix   int64             `json:"unix_ms,omitempty"`
	Forms  map[string]string `json:"forms"`
	Bytes  string            `json:"bytes"`
	UUID   *uuidInfo         `json:"uuid,omitempty"`
	forder []string
}

// uuidInfo is what a 36-character UUID (or 32 hex digits) says as a UUID.
type uuidInfo struct {
	Version  int    `json:"version"`
	Variant  string `json:"variant"`
	IsV7     bool   `json:"is_v7"`
	UUIDTime string `json:"uuid_time,omitempty"` // the time the UUID's own version encodes, if any
	Agrees   *bool  `json:"agrees_with_ulid_time,omitempty"`
	Note     string `json:"note"`
}

// parseAny detects an ID's kind from its length and parses it.
func parseAny(s string) (*idInfo, error) {
	// Text typed by a person: a non-ASCII character is named as such, in
	// characters. (The parsers, like the SQL functions, count and quote
	// bytes: a 26-character ID ending in 'Ä' is "invalid length 27".)
	if msg, ok := nonASCII(s); ok {
		return nil, fmt.Errorf("%q: %s", s, msg)
	}
	info := &idInfo{Input: s}
	switch len(s) {
	case 26, 36, 32:
		u, err := ulidtype.Parse(s)
		if err != nil {
			return nil, err
		}
		info.Kind = "ulid"
		info.Form = map[int]string{26: "ulid", 36: "uuid", 32: "hex"}[len(s)]
		info.Time = fmtTime(u.Timestamp())
		info.Unix = u.UnixMilli()
		info.Forms = map[string]string{"ulid": u.String(), "uuid": u.UUIDString(), "hex": hex.EncodeToString(u[:])}
		info.forder = []string{"ulid", "uuid", "hex"}
		info.Bytes = spacedHex(u[:])
		if len(s) != 26 {
			info.UUID = readUUID(u)
			if uuid.UUID(u).Variant() == uuid.RFC4122 && !info.UUID.IsV7 {
				// A UUIDv4 (or v1, v6...): not a ULID, and the time its
				// bytes would give as one is noise, so it is not shown.
				info.Kind = "uuid"
				info.Time, info.Unix = "", 0
			}
		}
	case 24, 16:
		o, err := objectidtype.Parse(s)
		if err != nil {
			return nil, err
		}
		info.Kind = "objectid"
		info.Form = map[int]string{24: "hex", 16: "short"}[len(s)]
		info.Time = fmtTime(o.Timestamp())
		info.Unix = o.Timestamp().UnixMilli()
		info.Forms = map[string]string{"hex": o.String(), "short": o.Short()}
		info.forder = []string{"hex", "short"}
		info.Bytes = spacedHex(o[:])
	default:
		return nil, fmt.Errorf("%q: %s; want a ULID (26), a UUID (36), 32 hex digits (ULID), 24 hex digits (ObjectId) "+
			"or an ObjectId short form (16)", s, plural(utf8.RuneCountInString(s), "character"))
	}
	return info, nil
}

// plural is "1 character", "2 characters".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// kindName is how text names a kind: "ULID", "ObjectId".
func kindName(kind string) string {
	return map[string]string{"ulid": "ULID", "objectid": "ObjectId", "uuid": "UUID"}[kind]
}

// aKind is a kind's name with its article: "a ULID", "an ObjectId".
func aKind(kind string) string {
	if kind == "objectid" {
		return "an ObjectId"
	}
	return "a " + kindName(kind)
}

// readUUID reads the ULID's 16 bytes as an RFC 9562 UUID.
func readUUID(u ulidtype.ULID) *uuidInfo {
	id := uuid.UUID(u)
	info := &uuidInfo{Version: int(id.Version()), Variant: id.Variant().String()}
	rfc := id.Variant() == uuid.RFC4122
	info.IsV7 = u.IsV7()
	agree := func(t time.Time) {
		info.UUIDTime = fmtTime(t)
		a := t.UnixMilli() == u.UnixMilli()
		info.Agrees = &a
	}
	switch {
	case info.IsV7:
		// UUIDv7's first 48 bits are Unix milliseconds, as a ULID's are.
		sec, nsec := id.Time().UnixTime()
		agree(time.Unix(sec, nsec))
		info.Note = "a UUIDv7: its 48-bit Unix-ms time is the ULID reading's time"
	case rfc && (info.Version == 1 || info.Version == 6):
		sec, nsec := id.Time().UnixTime()
		agree(time.Unix(sec, nsec))
		info.Note = fmt.Sprintf("a UUIDv%d holds a Gregorian time (below), not a Unix-ms one; pgid's bounds do not apply to it", info.Version)
	case rfc:
		info.Note = fmt.Sprintf("an RFC 9562 version %d UUID holds no time; its order is not creation order", info.Version)
	default:
		info.Note = "not an RFC 9562 UUID (variant bits are not 10): a plain ULID, or another kind of 16 bytes"
	}
	return info
}

// spacedHex is b as two hex digits a byte, separated by spaces.
func spacedHex(b []byte) string { return fmt.Sprintf("% x", b) }

func cmdInspect(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "inspect")
	asJSON := fs.Bool("json", false, "print a JSON array, one object per ID")
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if pos, err = argsOrStdin(pos, e.stdin); err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want at least one ID, as arguments or lines on stdin")
	}
	infos := make([]*idInfo, 0, len(pos))
	for _, s := range pos {
		info, err := parseAny(s)
		if err != nil {
			return usageError{err}
		}
		infos = append(infos, info)
	}
	if *asJSON {
		return writeJSON(e.stdout, infos)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for i, info := range infos {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "input\t%s\t(%s form)\n", info.Input, info.Form)
		if info.Kind == "uuid" {
			// Say what it is first: not a time-ordered ID.
			fmt.Fprintf(tw, "kind\tUUIDv%d, not a ULID: %s\n", info.UUID.Version, info.UUID.Note)
		} else {
			fmt.Fprintf(tw, "kind\t%s\n", kindName(info.Kind))
			fmt.Fprintf(tw, "time\t%s\t(Unix ms %d)\n", info.Time, info.Unix)
		}
		for _, f := range info.forder {
			fmt.Fprintf(tw, "%s\t%s\n", f, info.Forms[f])
		}
		fmt.Fprintf(tw, "bytes\t%s\n", info.Bytes)
		if u := info.UUID; u != nil {
			fmt.Fprintf(tw, "uuid version\t%d (variant %s)\n", u.Version, u.Variant)
			fmt.Fprintf(tw, "UUIDv7\t%s\n", yesNo(u.IsV7))
			switch {
			case u.Agrees == nil:
			case info.Kind == "uuid":
				fmt.Fprintf(tw, "UUID time\t%s\n", u.UUIDTime)
			default:
				fmt.Fprintf(tw, "UUID time\t%s\t(agrees with the ULID time: %s)\n", u.UUIDTime, yesNo(*u.Agrees))
			}
			if info.Kind != "uuid" {
				fmt.Fprintf(tw, "note\t%s\n", u.Note)
			}
		}
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ---- convert

func cmdConvert(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "convert")
	to := fs.String("to", "", "the form to print: ulid, uuid, hex (ULID or ObjectId) or short (ObjectId)")
	asJSON := fs.Bool("json", false, `print {"input", "kind", "to", "output"}; for several IDs, an array of them`)
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if *to == "" {
		return usagef("--to is required: ulid, uuid, hex or short")
	}
	if err := oneOf("to", *to, "ulid", "uuid", "hex", "short"); err != nil {
		return err
	}
	if pos, err = argsOrStdin(pos, e.stdin); err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want an ID, as an argument or lines on stdin")
	}
	type converted struct {
		Input  string `json:"input"`
		Kind   string `json:"kind"`
		To     string `json:"to"`
		Output string `json:"output"`
	}
	outs := make([]converted, 0, len(pos))
	for _, in := range pos {
		info, err := parseAny(in)
		if err != nil {
			return usageError{err}
		}
		out, ok := info.Forms[*to]
		if !ok {
			return usagef("%s: %s has no %s form; it has %s", info.Input, aKind(info.Kind), *to, strings.Join(info.forder, ", "))
		}
		outs = append(outs, converted{info.Input, info.Kind, *to, out})
	}
	switch {
	case *asJSON && len(outs) == 1:
		return writeJSON(e.stdout, outs[0])
	case *asJSON:
		return writeJSON(e.stdout, outs)
	}
	w := bufio.NewWriter(e.stdout)
	for _, o := range outs {
		w.WriteString(o.Output + "\n")
	}
	return w.Flush()
}

// ---- range

// parseWhen reads a time for range: RFC 3339 (with or without fraction or
// zone; without a zone it is UTC), a date, "now", or a signed span relative
// to now in the units partition.ParseSpan reads (-24h, -90m, -7d, -2w,
// -3mo, -1y, +1h30m) or a fraction of days (-1.5d).
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "now" {
		return now, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	const want = "want RFC 3339 (2026-11-22T10:00:00Z), a date (2026-11-22), now, or a signed span relative to now " +
		"(-24h, -90m, -7d, -2w, -3mo, -1y, +1h30m)"
	if s == "" {
		return time.Time{}, fmt.Errorf("empty time; %s", want)
	}
	sign := map[byte]int{'-': -1, '+': 1}[s[0]]
	if sign == 0 {
		return time.Time{}, fmt.Errorf("%q: %s", s, want)
	}
	if sp, err := partition.ParseSpan(s[1:]); err == nil {
		if sp.Months != 0 {
			return now.AddDate(0, sign*sp.Months, 0), nil
		}
		return now.Add(time.Duration(sign) * sp.Duration), nil
	}
	// What ParseSpan leaves out: fractions of days and sub-second durations.
	if days, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64); err == nil && strings.HasSuffix(s, "d") {
		return now.Add(time.Duration(days * float64(24*time.Hour))), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("%q: %s", s, want)
}

// bound is one end of a range in every form.
type bound struct {
	Time  string            `json:"time"`
	Forms map[string]string `json:"forms"`
}

// rangeOut is what range prints.
type rangeOut struct {
	Kind  string `json:"kind"`
	From  string `json:"from"`
	To    string `json:"to"`
	Lo    bound  `json:"lo"`
	Hi    bound  `json:"hi"`
	Where string `json:"where"`
	SQL   string `json:"where_sql_functions"`
	Note  string `json:"note"`
}

func cmdRange(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "range")
	fromS := fs.String("from", "", "start, inclusive: RFC 3339, a date, now, or a span relative to now (-24h, -7d, -2w, -3mo)")
	toS := fs.String("to", "now", "end, exclusive, as --from; now (the default) includes the current millisecond (ULID) or second (ObjectId)")
	kind := fs.String("kind", "ulid", "ulid or objectid")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(e, fs, args, " (use --from and --to)"); err != nil {
		return err
	}
	if err := required("from", *fromS); err != nil {
		return err
	}
	if err := oneOf("kind", *kind, "ulid", "objectid"); err != nil {
		return err
	}
	now := time.Now()
	from, err := parseWhen(*fromS, now)
	if err != nil {
		return usagef("--from %v", err)
	}
	to, err := parseWhen(*toS, now)
	if err != nil {
		return usagef("--to %v", err)
	}
	// Up to now means up to and including the current tick: a row inserted
	// in it, before or after this command ran, is inside.
	toNow := *toS == "now"
	out := rangeOut{Kind: *kind, From: fmtTime(from), To: fmtTime(to)}
	switch *kind {
	case "ulid":
		lo, hi := ulidtype.Range(from, to)
		if toNow {
			hi = ulidtype.Until(now) // Range(from, now) would leave out the current millisecond
		}
		if hi.Compare(lo) <= 0 {
			return usagef("--to %s is not after --from %s at millisecond precision: the range is empty", out.To, out.From)
		}
		f := func(u ulidtype.ULID) bound {
			return bound{fmtTime(u.Timestamp()), map[string]string{"ulid": u.String(), "uuid": u.UUIDString(), "hex": hex.EncodeToString(u[:])}}
		}
		out.Lo, out.Hi = f(lo), f(hi)
		out.Where = fmt.Sprintf("WHERE id >= '%s' AND id < '%s'", lo.UUIDString(), hi.UUIDString())
		out.SQL = fmt.Sprintf("WHERE id >= pgid.ulid_min_at('%s') AND id < pgid.ulid_min_at('%s')", out.From, out.To)
		out.Note = "half-open [lo, hi); both ends truncated to the millisecond; for a uuid / pgid.ulid column"
		if toNow {
			out.SQL = fmt.Sprintf("WHERE id >= pgid.ulid_min_at('%s') -- open at the top: nothing new is missed", out.From)
			out.Note = "half-open [lo, hi); hi is the next millisecond after now, so IDs made now are inside; for a uuid / pgid.ulid column"
		}
	case "objectid":
		lo, hi := objectidtype.Range(from, to)
		if toNow {
			hi = objectidtype.Until(now) // Range(from, now) would leave out the current second
		}
		if hi.Compare(lo) <= 0 {
			return usagef("--to %s is not after --from %s at second precision (ObjectIds hold whole seconds): the range is empty", out.To, out.From)
		}
		f := func(o objectidtype.ObjectID) bound {
			return bound{fmtTime(o.Timestamp()), map[string]string{"hex": o.String(), "short": o.Short()}}
		}
		out.Lo, out.Hi = f(lo), f(hi)
		out.Where = fmt.Sprintf(`WHERE id >= '\x%s' AND id < '\x%s'`, lo.String(), hi.String())
		out.SQL = fmt.Sprintf("WHERE id >= pgid.objectid_min_at('%s') AND id < pgid.objectid_min_at('%s')", out.From, out.To)
		out.Note = "half-open [lo, hi); both ends truncated to the second (ObjectIds hold whole seconds); for a bytea / pgid.objectid column"
		if toNow {
			out.SQL = fmt.Sprintf("WHERE id >= pgid.objectid_min_at('%s') -- open at the top: nothing new is missed", out.From)
			out.Note = "half-open [lo, hi); hi is the next second after now, so IDs made now are inside; for a bytea / pgid.objectid column"
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kind\t%s\n", out.Kind)
	fmt.Fprintf(tw, "from\t%s\t(%s)\n", out.From, *fromS)
	fmt.Fprintf(tw, "to\t%s\t(%s)\n", out.To, *toS)
	for _, b := range []struct {
		name string
		b    bound
	}{{"lo (>=)", out.Lo}, {"hi (<)", out.Hi}} {
		keys := []string{"ulid", "uuid", "hex"}
		if out.Kind == "objectid" {
			keys = []string{"hex", "short"}
		}
		for _, k := range keys {
			fmt.Fprintf(tw, "%s %s\t%s\n", b.name, k, b.b.Forms[k])
		}
	}
	fmt.Fprintf(tw, "note\t%s\n", out.Note)
	tw.Flush()
	fmt.Fprintf(e.stdout, "\n%s\n-- or, computed in SQL (pgid migrations):\n%s\n", out.Where, out.SQL)
	return nil
}
