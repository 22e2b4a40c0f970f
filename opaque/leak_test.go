package opaque

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// Named holders, as a service's config would hold a key or a codec (xml
// and gob want named types).
type (
	leakExported      struct{ Key Key }
	leakUnexported    struct{ key Key }
	leakExportedPtr   struct{ Key *Key }
	leakUnexportedPtr struct{ key *Key }
	leakKeys          struct {
		Keys []Key
		keys []Key
		ByID map[string]Key
	}
	leakCodec struct {
		Codec  *Codec
		codec  *Codec
		value  Codec
		Public PublicObjectID
		ulid   PublicULID
	}
	leakNested struct {
		Name string
		Cfg  struct {
			Opaque leakUnexported
			Other  leakExported
		}
	}
)

// secretNeedles returns the ways a secret's bytes could show in text: raw,
// hex (lower, upper, spaced), base64 (std, URL, raw), decimal, octal and
// binary byte lists (space- and comma-separated), Go-quoted and U+ forms,
// each for every 6-byte window (base64 for every 3-aligned one).
func secretNeedles(secret []byte) map[string]string {
	n := map[string]string{}
	join := func(w []byte, f func(byte) string, sep string) string {
		s := make([]string, len(w))
		for i, b := range w {
			s[i] = f(b)
		}
		return strings.Join(s, sep)
	}
	dec := func(b byte) string { return strconv.Itoa(int(b)) }
	oct := func(b byte) string { return strconv.FormatInt(int64(b), 8) }
	bin := func(b byte) string { return strconv.FormatInt(int64(b), 2) }
	uplus := func(b byte) string { return fmt.Sprintf("U+%04X", b) }
	for i := 0; i+6 <= len(secret); i++ {
		w := secret[i : i+6]
		at := " at byte " + strconv.Itoa(i)
		n[string(w)] = "raw bytes" + at
		n[hex.EncodeToString(w)] = "hex" + at
		n[strings.ToUpper(hex.EncodeToString(w))] = "HEX" + at
		n[fmt.Sprintf("% x", w)] = "spaced hex" + at
		n[fmt.Sprintf("% X", w)] = "spaced HEX" + at
		q := strconv.Quote(string(w))
		n[q[1:len(q)-1]] = "Go-quoted" + at
		n[join(w, dec, " ")] = "decimal list" + at
		n[join(w, dec, ",")] = "decimal list (commas)" + at
		n[join(w, oct, " ")] = "octal list" + at
		n[join(w, bin, " ")] = "binary list" + at
		n[join(w, uplus, " ")] = "U+ list" + at
		if i%3 == 0 {
			n[base64.StdEncoding.EncodeToString(w)] = "base64" + at
			n[base64.URLEncoding.EncodeToString(w)] = "base64url" + at
		}
	}
	return n
}

// TestSecretNeverShows formats, encodes and logs Keys, Codecs and structs
// holding them every way a service might, and finds the secret (or key
// material a Codec derives from it) in none of the outputs, nor in errors.
func TestSecretNeverShows(t *testing.T) {
	for _, size := range []int{16, 24, 32} {
		sum := sha256.Sum256([]byte("TestSecretNeverShows " + strconv.Itoa(size)))
		secret := sum[:size]
		k, older, err := ParseKeys("1:" + hex.EncodeToString(secret))
		if err != nil || len(older) != 0 {
			t.Fatal(err)
		}
		c := mustCodec(t, k)
		kp := &k
		public := c.PublicObjectID(objectidtype.New())
		pulid := c.PublicULID(ulidtype.New())
		subjects := map[string]any{
			"Key":                         k,
			"*Key":                        kp,
			"[]Key":                       []Key{k, k},
			"map[string]Key":              map[string]Key{"current": k},
			"*Codec":                      c,
			"Codec":                       *c,
			"PublicObjectID":              public,
			"*PublicObjectID":             &public,
			"PublicULID":                  pulid,
			"struct{Key Key}":             leakExported{k},
			"*struct{Key Key}":            &leakExported{k},
			"struct{key Key}":             leakUnexported{k},
			"*struct{key Key}":            &leakUnexported{k},
			"struct{Key *Key}":            leakExportedPtr{kp},
			"*struct{Key *Key}":           &leakExportedPtr{kp},
			"struct{key *Key}":            leakUnexportedPtr{kp},
			"struct{Keys, keys, ByID}":    leakKeys{[]Key{k}, []Key{k}, map[string]Key{"a": k}},
			"*struct{Keys, keys, ByID}":   &leakKeys{[]Key{k}, []Key{k}, map[string]Key{"a": k}},
			"struct{Codec, codec, ...}":   leakCodec{c, c, *c, public, pulid},
			"*struct{Codec, codec, ...}":  &leakCodec{c, c, *c, public, pulid},
			"nested struct{key Key}":      leakNested{Name: "svc"},
			"anonymous struct{key Key}":   struct{ key Key }{k},
			"anonymous struct{K Key}":     struct{ K Key }{k},
			"anonymous *struct{k Codec}":  &struct{ k Codec }{*c},
			"anonymous struct{k *Codec}":  struct{ k *Codec }{c},
			"anonymous struct{ks []*Key}": struct{ ks []*Key }{[]*Key{kp}},
			"[]any{Key, *Codec}":          []any{k, c},
		}
		nested := subjects["nested struct{key Key}"].(leakNested)
		nested.Cfg.Opaque, nested.Cfg.Other = leakUnexported{k}, leakExported{k}
		subjects["nested struct{key Key}"] = nested
		subjects["*nested struct{key Key}"] = &nested

		// The secret, and what the Codec derives from it (FF1's first
		// CBC-MAC block, AES under the key), in every encoding.
		needles := secretNeedles(secret)
		for needle, kind := range secretNeedles(c.state().current.p[:]) {
			needles[needle] = "the key's FF1 block, " + kind
		}
		leaks := map[string][]string{} // how: subjects
		example := map[string]string{} // how: one output
		var hows []string
		check := func(how, subject, out string) {
			for needle, kind := range needles {
				if strings.Contains(out, needle) {
					if leaks[how] == nil {
						hows = append(hows, how)
						example[how] = fmt.Sprintf("%s, %s: %.160q", subject, kind, out)
					}
					leaks[how] = append(leaks[how], subject)
					return
				}
			}
		}
		verbs := []string{
			"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%o", "%O", "%b",
			"%p", "%T", "%e", "%E", "%f", "%F", "%g", "%G", "%c", "%U", "%t",
			"% x", "% X", "%#x", "%+q", "%#q", "%10v", "%-40s", "%08d", "%.3x",
			"%+d", "%#o", "%#U", "%6.2f", "%[1]v %[1]d",
		}
		tmpl := template.Must(template.New("").Parse(`{{.}} {{printf "%d %x %+v" . . .}}`))
		names := make([]string, 0, len(subjects))
		for name := range subjects {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			v := subjects[name]
			for _, verb := range verbs {
				check("fmt "+verb, name, fmt.Sprintf(verb, v))
				check("fmt.Errorf "+verb, name, fmt.Errorf(verb, v).Error())
			}
			check("fmt.Sprint", name, fmt.Sprint(v))
			check("fmt.Sprintln", name, fmt.Sprintln("x", v))
			wrapped := fmt.Errorf("loading %v: %w", v, errors.Join(ErrKey, fmt.Errorf("inner %+v", v)))
			check("fmt.Errorf %w chain", name, wrapped.Error()+fmt.Sprintf(" %v %+v", wrapped, errors.Unwrap(wrapped)))

			var buf bytes.Buffer
			log.New(&buf, "", 0).Printf("%v %+v %d", v, v, v)
			check("log.Printf", name, buf.String())
			buf.Reset()
			if err := tmpl.Execute(&buf, v); err != nil {
				buf.WriteString(err.Error())
			}
			check("text/template", name, buf.String())

			b, err := json.Marshal(v)
			check("json.Marshal", name, string(b)+fmt.Sprint(err))
			b, err = json.MarshalIndent(map[string]any{"cfg": v}, "", " ")
			check("json.MarshalIndent", name, string(b)+fmt.Sprint(err))
			b, err = xml.Marshal(v)
			check("xml.Marshal", name, string(b)+fmt.Sprint(err))
			b, err = xml.MarshalIndent(struct {
				XMLName xml.Name `xml:"cfg"`
				V       any
			}{V: v}, "", " ")
			check("xml.Marshal (field)", name, string(b)+fmt.Sprint(err))

			buf.Reset()
			err = gob.NewEncoder(&buf).Encode(v)
			check("gob", name, buf.String()+fmt.Sprint(err))

			for hname, h := range map[string]func(*bytes.Buffer) slog.Handler{
				"slog text": func(w *bytes.Buffer) slog.Handler { return slog.NewTextHandler(w, nil) },
				"slog JSON": func(w *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(w, nil) },
			} {
				buf.Reset()
				l := slog.New(h(&buf))
				l.Info("start", "key", v, slog.Any("cfg", struct{ V any }{v}), slog.Group("g", "k", v))
				l.With("key", v).Error("failed", "err", fmt.Errorf("with %v", v))
				check(hname, name, buf.String())
			}
		}

		// Errors about a key never carry it either.
		for _, bad := range []string{
			"1:" + hex.EncodeToString(secret) + "zz",
			"1:" + hex.EncodeToString(secret)[1:],
			"9:" + hex.EncodeToString(secret),
			hex.EncodeToString(secret),
			"1 " + strings.ToUpper(hex.EncodeToString(secret)) + "g",
		} {
			_, _, err := ParseKeys(bad)
			if err == nil {
				t.Errorf("ParseKeys accepted %q", bad)
				continue
			}
			check("ParseKeys error", "a bad line", err.Error())
		}
		_, err = NewCodec(k, k)
		check("NewCodec error", "two keys with one ID", fmt.Sprint(err))

		for _, how := range hows {
			t.Errorf("%d-byte key: %s shows the secret for %d of %d subjects, e.g. %s", size, how, len(leaks[how]), len(subjects), example[how])
		}
	}
}

// TestKeyEncodings: a Key shows its ID, nothing more, to each encoder, is
// never decoded, and gob refuses it.
func TestKeyEncodings(t *testing.T) {
	k := NewKey(2, []byte("TestKeyEncodings, 32 bytes long!"))
	type cfg struct {
		Name string
		Key  Key
	}
	for _, c := range []struct{ how, got, want string }{
		{"String", k.String(), "opaque.Key{ID: 2, Secret: 32 bytes}"},
		{"%v", fmt.Sprintf("%v", k), "opaque.Key{ID: 2, Secret: 32 bytes}"},
		{"%x", fmt.Sprintf("%x", k), "opaque.Key{ID: 2, Secret: 32 bytes}"},
		{"%q", fmt.Sprintf("%q", &k), `"opaque.Key{ID: 2, Secret: 32 bytes}"`},
		{"%40v", fmt.Sprintf("|%40v|", k), "|     opaque.Key{ID: 2, Secret: 32 bytes}|"},
		{"%-37s", fmt.Sprintf("|%-37s|", k), "|opaque.Key{ID: 2, Secret: 32 bytes}  |"},
		{"%+v of a struct", fmt.Sprintf("%+v", cfg{"svc", k}), "{Name:svc Key:opaque.Key{ID: 2, Secret: 32 bytes}}"},
		{"zero", fmt.Sprint(Key{}), "opaque.Key{}"},
		{"json", mustString(json.Marshal(cfg{"svc", k})), `{"Name":"svc","Key":{"id":2}}`},
		{"json zero", mustString(json.Marshal(Key{})), `null`},
		{"xml", mustString(xml.Marshal(cfg{"svc", k})), `<cfg><Name>svc</Name><Key>opaque.Key{ID: 2, Secret: 32 bytes}</Key></cfg>`},
		{"slog text", slogLine(slog.NewTextHandler, k), `msg=m key.id=2`},
		{"slog JSON", slogLine(slog.NewJSONHandler, k), `"msg":"m","key":{"id":2}}`},
		{"ID", strconv.Itoa(int(k.ID())), "2"},
	} {
		if !strings.Contains(c.got, c.want) || (c.how != "slog text" && c.how != "slog JSON" && c.got != c.want) {
			t.Errorf("%s: %q, want %q", c.how, c.got, c.want)
		}
	}
	var in cfg
	var buf bytes.Buffer
	for how, err := range map[string]error{
		"json.Unmarshal":       json.Unmarshal([]byte(`{"Key":{"ID":1,"Secret":"VGVzdEtleUVuY29kaW5ncywgMzIgYnl0ZXMgbG9uZyE="}}`), &in),
		"json.Unmarshal {id}":  json.Unmarshal([]byte(`{"Key":{"id":2}}`), &in),
		"xml.Unmarshal":        xml.Unmarshal([]byte(`<cfg><Key>1:00112233445566778899aabbccddeeff</Key></cfg>`), &in),
		"gob.Encode":           gob.NewEncoder(&buf).Encode(cfg{"svc", k}),
		"(*Key).GobDecode":     new(Key).GobDecode([]byte{1}),
		"(*Key).UnmarshalText": new(Key).UnmarshalText([]byte("1:00112233445566778899aabbccddeeff")),
	} {
		if !errors.Is(err, ErrKeyEncoding) || !strings.Contains(err.Error(), "read keys with opaque.ParseKeys") {
			t.Errorf("%s: %v, want ErrKeyEncoding", how, err)
		}
	}
	if in.Key != (Key{}) {
		t.Errorf("a Key was decoded: %v", in.Key)
	}
	if bytes.Contains(buf.Bytes(), []byte("32 bytes long")) {
		t.Errorf("gob wrote the secret: %q", buf.Bytes())
	}
	// NewKey copies the secret: changing the caller's bytes changes nothing.
	b := []byte("0123456789abcdef")
	k1 := NewKey(1, b)
	c1 := mustCodec(t, k1)
	code := c1.ULIDCode(ulidtype.ULID{})
	b[0] = 'x'
	if mustCodec(t, k1).ULIDCode(ulidtype.ULID{}) != code {
		t.Error("NewKey kept the caller's slice")
	}
	// Keys compare as handles: copies are equal, two NewKeys are not.
	if k2 := k1; k2 != k1 || NewKey(1, b) == NewKey(1, b) {
		t.Error("Key comparison")
	}
}

func mustString(b []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func slogLine[H slog.Handler](h func(io.Writer, *slog.HandlerOptions) H, k Key) string {
	var buf bytes.Buffer
	slog.New(h(&buf, nil)).Info("m", "key", k)
	return strings.TrimSpace(buf.String())
}
