// Package opaque turns stored IDs into public codes and back with a secret
// key, so that a code gives away neither when its ID was made nor which IDs
// are its neighbours, while the raw ID stays the primary key (range
// queries, partitions and sorting keep working on it; only the edge of an
// API sees codes).
//
//   - An ObjectId becomes 16 URL-safe characters, the length and alphabet of
//     [objectidtype.ObjectID.Short], through FF1 (NIST SP 800-38G) with AES
//     over 16 digits of radix 64: a keyed permutation of all 2^96 values.
//   - A ULID becomes 26 Crockford base32 characters, the length and alphabet
//     of its own text, through one AES block; the two bits 26 characters
//     hold beyond 128 carry the key's ID, so a code names its key.
//
// The same ID always gets the same code under a key: codes hide order and
// time, not identity. They are not authenticated: a code made up or made
// with another key decodes to some ID, which the lookup will not find. Use a
// separate random token where a code must be unguessable or grant access.
//
// # Keys and rotation
//
// A [Key] is 16, 24 or 32 secret bytes (AES-128, -192 or -256) and an ID
// from 0 to 3 that stays with it, made by [ParseKeys] or [NewKey]. A [Codec] has one current key, used for
// every new code, and up to three older ones:
//
//   - a ULID code carries its key ID, so [Codec.OpenULID] picks the key
//     and returns exactly one ID;
//   - an ObjectId code has no spare bit. [Codec.OpenObjectID] uses the
//     current key; [Codec.AppendObjectIDCandidates] returns one ID per key,
//     current first, for the lookup to decide (WHERE id = ANY($1)): each
//     older key costs one more decryption and one more index probe.
//
// Keys come from bytes: a file or an environment variable. A Key or a
// Codec printed (any fmt verb, or inside a struct), logged (log/slog) or
// encoded (JSON, XML, text) shows key IDs, never a secret; gob refuses a
// Key. Decoding needs no SQL: keep the key out of query text (and so out
// of logs and pg_stat_statements) by decoding in Go.
package opaque

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors of keys. Test for them with [errors.Is].
var (
	// ErrKey: a key is not 16, 24 or 32 bytes, has an ID over 3, or two
	// keys share an ID.
	ErrKey = errors.New("opaque: invalid key")
	// ErrKeyEncoding: a Key was to be gob-encoded, or decoded from JSON,
	// XML, text or gob; its secret is never written or read that way.
	ErrKeyEncoding = errors.New("opaque: keys are not encoded")
)

// MaxKeys is how many keys a Codec holds: the current one and three older.
const MaxKeys = 4

// Key is a secret for a [Codec]: an ID from 0 to 3 and 16, 24 or 32 secret
// bytes. Make one with [NewKey] or [ParseKeys]; the zero Key is no key.
//
// The secret cannot be printed, logged or encoded: it sits behind an
// unexported pointer, where fmt (which shows unexported fields without
// calling their methods) and reflection-based encoders do not reach, and
// every way a Key shows itself names only its ID: String, Format (all fmt
// verbs), MarshalText, MarshalJSON ({"id":1}) and LogValue. GobEncode
// refuses with [ErrKeyEncoding], and a Key is never decoded from JSON, XML,
// text or gob: keys come from [ParseKeys] (a key file or an environment
// variable) or [NewKey]. Keys compare equal only when copied from the same
// NewKey or ParseKeys result.
type Key struct {
	s *keySecret
}

// keySecret is what a Key points to. The secret is one pointer further:
// fmt's error form for a wrong verb (%!s(*opaque.keySecret=&{...})) shows
// the fields of the struct a pointer points to, but not what they point
// to in turn.
type keySecret struct {
	id     uint8
	secret *[]byte
}

// NewKey returns the key id with secret (copied). [NewCodec] checks it:
// the ID 0 to 3, the secret 16, 24 or 32 bytes.
func NewKey(id uint8, secret []byte) Key {
	return keyOf(id, bytes.Clone(secret))
}

// GenerateKeyText returns a new key with ID id and size random secret bytes
// (16, 24 or 32: AES-128, -192, -256) as one line of a key file, "ID:hex"
// and a newline: what pgid new-key prints and [ParseKeys] reads. The line
// is the secret: write it to a file only its owner can read (mode 0600) or
// to a secret store, never to a log. Errors wrap [ErrKey] (an ID over 3 or
// another size) or come from crypto/rand.
func GenerateKeyText(id uint8, size int) (string, error) {
	b, err := randomSecret(id, size)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(int(id)) + ":" + hex.EncodeToString(b) + "\n", nil
}

// GenerateKey returns a new key with ID id and 32 random secret bytes
// (AES-256). Like every Key it cannot be printed, logged or encoded, so
// codes made with it resolve only while the process keeps it: for keys
// that must outlive the process, store [GenerateKeyText]'s line and read it
// with [ParseKeys]. Errors wrap [ErrKey] (an ID over 3) or come from
// crypto/rand.
func GenerateKey(id uint8) (Key, error) {
	b, err := randomSecret(id, 32)
	if err != nil {
		return Key{}, err
	}
	return keyOf(id, b), nil
}

// randomSecret checks id and size and returns size random bytes.
func randomSecret(id uint8, size int) ([]byte, error) {
	if id >= MaxKeys {
		return nil, fmt.Errorf("%w: key ID %d, want 0 to %d", ErrKey, id, MaxKeys-1)
	}
	if size != 16 && size != 24 && size != 32 {
		return nil, fmt.Errorf("%w: %d secret bytes, want 16, 24 or 32", ErrKey, size)
	}
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("opaque: generate key: %w", err)
	}
	return b, nil
}

func keyOf(id uint8, secret []byte) Key {
	return Key{&keySecret{id: id, secret: &secret}}
}

// ID returns k's ID, which is written into every ULID code made with k.
// Keep it with the secret for as long as codes made with it must resolve.
// The zero Key's ID is 0.
func (k Key) ID() uint8 {
	if k.s == nil {
		return 0
	}
	return k.s.id
}

// String returns "opaque.Key{ID: 1, Secret: 32 bytes}" ("opaque.Key{}"
// for the zero Key), never the secret.
func (k Key) String() string {
	if k.s == nil {
		return "opaque.Key{}"
	}
	return "opaque.Key{ID: " + strconv.Itoa(int(k.s.id)) + ", Secret: " + strconv.Itoa(len(*k.s.secret)) + " bytes}"
}

// GoString is String.
func (k Key) GoString() string { return k.String() }

// Format writes String for every verb (quoted for %q), with the width and
// flags given, so no verb (%x, %d, %+v...) shows the secret.
func (k Key) Format(f fmt.State, verb rune) {
	if verb != 'q' {
		verb = 's'
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), k.String())
}

// MarshalText returns String: the ID, not the secret.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// MarshalJSON returns {"id":N}, or null for the zero Key: never the secret.
func (k Key) MarshalJSON() ([]byte, error) {
	if k.s == nil {
		return []byte("null"), nil
	}
	return []byte(`{"id":` + strconv.Itoa(int(k.s.id)) + `}`), nil
}

// LogValue shows the key's ID (id=1) to log/slog, never the secret.
func (k Key) LogValue() slog.Value {
	if k.s == nil {
		return slog.StringValue(k.String())
	}
	return slog.GroupValue(slog.Int("id", int(k.s.id)))
}

// GobEncode refuses with [ErrKeyEncoding]: a Key with only its ID would
// decode to no key, and the secret is not written to encoded data.
func (k Key) GobEncode() ([]byte, error) { return nil, keyEncodingError("encoded with gob") }

// GobDecode refuses with [ErrKeyEncoding].
func (k *Key) GobDecode([]byte) error { return keyEncodingError("decoded from gob") }

// UnmarshalText refuses with [ErrKeyEncoding] (a key is not read from
// XML, text or configuration formats).
func (k *Key) UnmarshalText([]byte) error { return keyEncodingError("read from text") }

// UnmarshalJSON refuses with [ErrKeyEncoding].
func (k *Key) UnmarshalJSON([]byte) error { return keyEncodingError("read from JSON") }

func keyEncodingError(what string) error {
	return fmt.Errorf("%w: a Key is not %s, so that its secret stays out of encoded data; read keys with opaque.ParseKeys from a key file or an environment variable", ErrKeyEncoding, what)
}

// String shows c's key IDs, current first, never a secret.
func (c *Codec) String() string {
	var b strings.Builder
	b.WriteString("opaque.Codec{keys:")
	for i, s := range c.keyStates() {
		b.WriteString(" " + strconv.Itoa(int(s.id)))
		if i == 0 {
			b.WriteString(" (current)")
		}
	}
	return b.String() + "}"
}

// GoString is String.
func (c *Codec) GoString() string { return c.String() }

// Codec makes and reads public codes with its keys. It is safe for
// concurrent use; build one at start-up and share it.
type Codec struct {
	// The keys sit behind a pointer, so that fmt's error form for a wrong
	// verb on a Codec value shows addresses, not key material.
	*codecKeys
}

type codecKeys struct {
	current *keyState
	byID    [MaxKeys]*keyState
	order   []*keyState // current first, then older in the order given
}

// keyStates returns c.order, nil for the zero Codec.
func (c *Codec) keyStates() []*keyState {
	if c == nil || c.codecKeys == nil {
		return nil
	}
	return c.order
}

// keyState is a key's expanded AES schedule and FF1's constant first
// CBC-MAC block.
type keyState struct {
	id    uint8
	block cipher.Block
	p     [16]byte // CIPH_K(P) for radix 64, 16 digits, no tweak
}

// NewCodec returns a Codec that makes codes with current and also reads
// codes made with older.
func NewCodec(current Key, older ...Key) (*Codec, error) {
	if len(older) >= MaxKeys {
		return nil, fmt.Errorf("%w: %d keys, at most %d", ErrKey, len(older)+1, MaxKeys)
	}
	c := &Codec{&codecKeys{}}
	for i, key := range append([]Key{current}, older...) {
		k := key.s
		if k == nil {
			return nil, fmt.Errorf("%w: key %d of %d is the zero Key: make keys with opaque.NewKey or opaque.ParseKeys", ErrKey, i+1, len(older)+1)
		}
		if k.id >= MaxKeys {
			return nil, fmt.Errorf("%w: key ID %d, want 0 to %d", ErrKey, k.id, MaxKeys-1)
		}
		if c.byID[k.id] != nil {
			return nil, fmt.Errorf("%w: two keys with ID %d", ErrKey, k.id)
		}
		switch len(*k.secret) {
		case 16, 24, 32:
		default:
			return nil, fmt.Errorf("%w: key %d has %d bytes, want 16, 24 or 32", ErrKey, k.id, len(*k.secret))
		}
		block, err := aes.NewCipher(*k.secret)
		if err != nil {
			return nil, fmt.Errorf("%w: key %d: %v", ErrKey, k.id, err)
		}
		s := &keyState{id: k.id, block: block}
		p := ff1P()
		block.Encrypt(s.p[:], p[:])
		c.byID[k.id] = s
		c.order = append(c.order, s)
		if i == 0 {
			c.current = s
		}
	}
	return c, nil
}

// KeyIDs returns the IDs of c's keys, current first.
func (c *Codec) KeyIDs() []uint8 {
	ids := make([]uint8, len(c.keyStates()))
	for i, s := range c.keyStates() {
		ids[i] = s.id
	}
	return ids
}

// CodeError is the error for a code that cannot be decoded. It wraps
// [ErrLength], [ErrCharacter] or [ErrUnknownKey].
type CodeError struct {
	Kind string // "ObjectId" or "ULID"
	Code string // the input, cut to 64 bytes
	Msg  string // what is wrong, e.g. "15 characters, want 16"
	Err  error
}

func (e *CodeError) Error() string {
	return "opaque: " + e.Kind + " code " + strconv.Quote(e.Code) + ": " + e.Msg
}

// Unwrap returns the sentinel.
func (e *CodeError) Unwrap() error { return e.Err }

func codeError(kind, code string, err error, msg string) error {
	if len(code) > 64 {
		code = code[:64] + "..."
	}
	return &CodeError{Kind: kind, Code: code, Msg: msg, Err: err}
}

// lengthError describes a code of the wrong length, counting characters,
// not bytes: a code of the right number of characters, some of them not
// ASCII, has a wrong character, not a wrong length.
func lengthError(kind, code string, want int, valid func(byte) bool, wantChar string) error {
	n := utf8.RuneCountInString(code)
	if n == want {
		return charError(kind, code, valid, wantChar)
	}
	return codeError(kind, code, ErrLength, fmt.Sprintf("%s, want %d", plural(n, "character"), want))
}

// charError names the first character of code outside alphabet (valid
// reports membership) and its position.
func charError(kind, code string, valid func(byte) bool, want string) error {
	for i, r := range code {
		if r >= 0x80 || !valid(byte(r)) {
			return codeError(kind, code, ErrCharacter, fmt.Sprintf("invalid character %q at position %d, want %s", r, i, want))
		}
	}
	return codeError(kind, code, ErrCharacter, "invalid character, want "+want)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// ParseKeys reads keys from text, one per line: a key ID, a space or a
// colon, and the secret in hex (32, 48 or 64 digits). Empty lines and
// lines starting with # are skipped; the first key is the current one.
// Errors name the line, never its content.
func ParseKeys(text string) (current Key, older []Key, err error) {
	var keys []Key
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		id, secret, ok := strings.Cut(line, ":")
		if !ok {
			id, secret, ok = strings.Cut(line, " ")
		}
		v, perr := strconv.ParseUint(strings.TrimSpace(id), 10, 8)
		if !ok || perr != nil || v >= MaxKeys {
			return Key{}, nil, fmt.Errorf("%w: line %d: want a key ID 0 to %d, a colon and the secret in hex", ErrKey, n+1, MaxKeys-1)
		}
		b, herr := decodeHexSecret(strings.TrimSpace(secret))
		if herr != nil {
			return Key{}, nil, fmt.Errorf("%w: line %d: %v", ErrKey, n+1, herr)
		}
		keys = append(keys, keyOf(uint8(v), b))
	}
	if len(keys) == 0 {
		return Key{}, nil, fmt.Errorf("%w: no key (want lines of ID:hex)", ErrKey)
	}
	return keys[0], keys[1:], nil
}

// decodeHexSecret decodes hex without echoing any of it in errors.
func decodeHexSecret(s string) ([]byte, error) {
	switch len(s) {
	case 32, 48, 64:
	default:
		return nil, fmt.Errorf("the secret has %d hex digits, want 32, 48 or 64", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("the secret is not all hex digits")
	}
	return b, nil
}
