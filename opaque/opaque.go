// Package opaque turns stored IDs into public codes and back with a secret
// key, so that a code gives away neither when its ID was made nor which IDs
// are its neighbours, while the raw ID stays the primary key. An ObjectId
// becomes 16 URL-safe characters (FF1 with AES), a ULID 26 Crockford base32
// characters (one AES block) that also name the key.
//
// The same ID always gets the same code under a key: codes hide order and
// time, not identity. They are not authenticated: a code made up or made
// with another key decodes to some ID, which the lookup will not find.
//
// A [Key] is 16, 24 or 32 secret bytes and an ID from 0 to 3, from
// [ParseKeys] or [NewKey]; a [Codec] has one current key and up to three
// older ones for rotation. Keys and Codecs print, log and encode as their
// key IDs only. See docs/CODES.md for rotation, what the codes hide and the
// key files.
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
	"runtime"
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
// The secret cannot be printed, logged, encoded or dumped: a Key holds its
// ID and a handle into a table inside this package, so even dumpers that
// read unexported fields and follow pointers (go-spew, testify, kr/pretty,
// litter) find no secret. Every way a Key shows itself names only its ID:
// String, Format (all fmt verbs), MarshalText, MarshalJSON ({"id":1}) and
// LogValue. GobEncode refuses with [ErrKeyEncoding], and a Key is never
// decoded from JSON, XML, text or gob: keys come from [ParseKeys] (a key
// file or an environment variable) or [NewKey]. Copies of a Key work alike
// and compare equal; two NewKey or ParseKeys results do not. Once no copy
// is left, the table's copy of the secret is wiped.
type Key struct {
	ref *handle // into keySecrets
	id  uint8
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
	return Key{ref: newKeyHandle(secret), id: id}
}

// secret returns k's secret bytes, nil for the zero Key. The caller keeps
// k alive (runtime.KeepAlive) while it uses them.
func (k Key) secret() []byte {
	if k.ref == nil {
		return nil
	}
	if s := keySecrets.get(k.ref.h); s != nil {
		return *s
	}
	return nil
}

// ID returns k's ID, which is written into every ULID code made with k.
// Keep it with the secret for as long as codes made with it must resolve.
// The zero Key's ID is 0.
func (k Key) ID() uint8 { return k.id }

// String returns "opaque.Key{ID: 1, Secret: 32 bytes}" ("opaque.Key{}"
// for the zero Key), never the secret.
func (k Key) String() string {
	if k.ref == nil {
		return "opaque.Key{}"
	}
	n := len(k.secret())
	runtime.KeepAlive(k.ref)
	return "opaque.Key{ID: " + strconv.Itoa(int(k.id)) + ", Secret: " + strconv.Itoa(n) + " bytes}"
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
	if k.ref == nil {
		return []byte("null"), nil
	}
	return []byte(`{"id":` + strconv.Itoa(int(k.id)) + `}`), nil
}

// LogValue shows the key's ID (id=1) to log/slog, never the secret.
func (k Key) LogValue() slog.Value {
	if k.ref == nil {
		return slog.StringValue(k.String())
	}
	return slog.GroupValue(slog.Int("id", int(k.id)))
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
	runtime.KeepAlive(c)
	return b.String() + "}"
}

// GoString is String.
func (c *Codec) GoString() string { return c.String() }

// Codec makes and reads public codes with its keys. It is safe for
// concurrent use; build one at start-up and share it. Like a [Key], it
// holds a handle, not the expanded keys, so no dumper reaches them.
type Codec struct {
	h   uint32  // into codecStates, for the lookup of every call
	ref *handle // the same handle; its cleanup releases the entry
}

// codecState is what a Codec's handle finds.
type codecState struct {
	current *keyState
	byID    [MaxKeys]*keyState
	order   []*keyState // current first, then older in the order given
}

// state returns c's keys, nil for the zero Codec. The caller keeps c alive
// (runtime.KeepAlive) while it uses them.
func (c *Codec) state() *codecState {
	if c == nil || c.ref == nil {
		return nil
	}
	return codecStates.get(c.h)
}

// keyStates returns c's keys, current first, nil for the zero Codec.
func (c *Codec) keyStates() []*keyState {
	if s := c.state(); s != nil {
		return s.order
	}
	return nil
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
	c := &codecState{}
	keys := append([]Key{current}, older...)
	defer runtime.KeepAlive(keys)
	for i, k := range keys {
		if k.ref == nil {
			return nil, fmt.Errorf("%w: key %d of %d is the zero Key: make keys with opaque.NewKey or opaque.ParseKeys", ErrKey, i+1, len(older)+1)
		}
		if k.id >= MaxKeys {
			return nil, fmt.Errorf("%w: key ID %d, want 0 to %d", ErrKey, k.id, MaxKeys-1)
		}
		if c.byID[k.id] != nil {
			return nil, fmt.Errorf("%w: two keys with ID %d", ErrKey, k.id)
		}
		secret := k.secret()
		switch len(secret) {
		case 16, 24, 32:
		default:
			return nil, fmt.Errorf("%w: key %d has %d bytes, want 16, 24 or 32", ErrKey, k.id, len(secret))
		}
		block, err := aes.NewCipher(secret)
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
	ref := newCodecHandle(c)
	return &Codec{h: ref.h, ref: ref}, nil
}

// KeyIDs returns the IDs of c's keys, current first.
func (c *Codec) KeyIDs() []uint8 {
	ids := make([]uint8, len(c.keyStates()))
	for i, s := range c.keyStates() {
		ids[i] = s.id
	}
	runtime.KeepAlive(c)
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
