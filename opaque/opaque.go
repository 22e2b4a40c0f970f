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
// from 0 to 3 that stays with it. A [Codec] has one current key, used for
// every new code, and up to three older ones:
//
//   - a ULID code carries its key ID, so [Codec.OpenULID] picks the key
//     and returns exactly one ID;
//   - an ObjectId code has no spare bit. [Codec.OpenObjectID] uses the
//     current key; [Codec.AppendObjectIDCandidates] returns one ID per key,
//     current first, for the lookup to decide (WHERE id = ANY($1)): each
//     older key costs one more decryption and one more index probe.
//
// Keys come from bytes: a file or an environment variable. The package
// never prints, logs or formats them, and decoding needs no SQL: keep the
// key out of query text (and so out of logs and pg_stat_statements) by
// decoding in Go.
package opaque

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	// ErrKey: a key is not 16, 24 or 32 bytes, has an ID over 3, or two
	// keys share an ID.
	ErrKey = errors.New("opaque: invalid key")
	// ErrLength: a code has the wrong length for its kind.
	ErrLength = errors.New("opaque: invalid length")
	// ErrCharacter: a code has a character outside its alphabet.
	ErrCharacter = errors.New("opaque: invalid character")
	// ErrUnknownKey: a ULID code names a key ID the Codec does not have.
	ErrUnknownKey = errors.New("opaque: unknown key")
	// ErrNoCodec: a Public value with no Codec was marshalled or filled.
	ErrNoCodec = errors.New("opaque: no codec")
)

// MaxKeys is how many keys a Codec holds: the current one and three older.
const MaxKeys = 4

// Key is a secret for a [Codec]. Its Secret is never printed: Key has a
// String and a GoString method that show only its ID.
type Key struct {
	// ID, 0 to 3, is written into every ULID code made with this key. Keep
	// it with the secret for as long as codes made with it must resolve.
	ID uint8
	// Secret is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.
	Secret []byte
}

// String shows c's key IDs, current first, never a secret.
func (c *Codec) String() string {
	var b strings.Builder
	b.WriteString("opaque.Codec{keys:")
	for i, s := range c.order {
		b.WriteString(" " + strconv.Itoa(int(s.id)))
		if i == 0 {
			b.WriteString(" (current)")
		}
	}
	return b.String() + "}"
}

// GoString is String.
func (c *Codec) GoString() string { return c.String() }

// String returns "opaque.Key{ID: 1, Secret: 32 bytes}", never the secret.
func (k Key) String() string {
	return "opaque.Key{ID: " + strconv.Itoa(int(k.ID)) + ", Secret: " + strconv.Itoa(len(k.Secret)) + " bytes}"
}

// GoString is String, so %#v does not print the secret either.
func (k Key) GoString() string { return k.String() }

// Codec makes and reads public codes with its keys. It is safe for
// concurrent use; build one at start-up and share it.
type Codec struct {
	current *keyState
	byID    [MaxKeys]*keyState
	order   []*keyState // current first, then older in the order given
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
	c := &Codec{}
	for i, k := range append([]Key{current}, older...) {
		if k.ID >= MaxKeys {
			return nil, fmt.Errorf("%w: key ID %d, want 0 to %d", ErrKey, k.ID, MaxKeys-1)
		}
		if c.byID[k.ID] != nil {
			return nil, fmt.Errorf("%w: two keys with ID %d", ErrKey, k.ID)
		}
		switch len(k.Secret) {
		case 16, 24, 32:
		default:
			return nil, fmt.Errorf("%w: key %d has %d bytes, want 16, 24 or 32", ErrKey, k.ID, len(k.Secret))
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("%w: key %d: %v", ErrKey, k.ID, err)
		}
		s := &keyState{id: k.ID, block: block}
		p := ff1P()
		block.Encrypt(s.p[:], p[:])
		c.byID[k.ID] = s
		c.order = append(c.order, s)
		if i == 0 {
			c.current = s
		}
	}
	return c, nil
}

// KeyIDs returns the IDs of c's keys, current first.
func (c *Codec) KeyIDs() []uint8 {
	ids := make([]uint8, len(c.order))
	for i, s := range c.order {
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
		keys = append(keys, Key{ID: uint8(v), Secret: b})
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
