// Package pgarray reads and writes one-dimensional PostgreSQL arrays, in
// text form ({a,"b",NULL}) and in the binary format pgx hands to a
// sql.Scanner, for the Slice and NullSlice types of ulidtype, objectidtype
// and typeid. It knows nothing of IDs: each package parses its own elements.
package pgarray

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/internal/idtext"
)

// MaxElem is the longest array element, after unescaping, that Array hands
// over: longer than any text form of an ID.
const MaxElem = 64

// ArrayError says where and why Array refused its input.
type ArrayError struct {
	Pos int    // byte offset in the input
	Msg string // what is wrong there
}

// Error returns the message and the position.
func (e *ArrayError) Error() string { return e.Msg + " at position " + strconv.Itoa(e.Pos) }

// Array reads s, a one-dimensional PostgreSQL array in text form such as
// {a,"b",NULL}, and calls elem for each element in order with its unescaped
// text (valid only during the call) or null true for an unquoted NULL. It
// stops at the first error elem returns and returns it. Its own errors are
// *ArrayError: not an array, more than one dimension, an element longer than
// MaxElem, or text after the closing brace. It allocates only one
// MaxElem-byte buffer, whatever the number of elements.
func Array[T string | []byte](s T, elem func(i int, text []byte, null bool) error) error {
	var buf [MaxElem]byte
	p := skipSpace(s, 0)
	if p == len(s) || s[p] != '{' {
		return &ArrayError{p, "not a PostgreSQL array: want '{'"}
	}
	p = skipSpace(s, p+1)
	if p < len(s) && s[p] == '}' {
		return trailing(s, p+1)
	}
	for i := 0; ; i++ {
		p = skipSpace(s, p)
		if p == len(s) {
			return &ArrayError{p, "unterminated array"}
		}
		n, quoted := 0, s[p] == '"'
		if s[p] == '{' {
			return &ArrayError{p, "multi-dimensional array: want one dimension"}
		}
		if quoted {
			p++
		}
		start, end := p, -1 // end: n after the last byte that counts for an unquoted element
		for ; ; p++ {
			if p == len(s) {
				return &ArrayError{p, "unterminated array"}
			}
			c := s[p]
			if quoted && c == '"' {
				p++
				break
			}
			if !quoted && (c == ',' || c == '}') {
				break
			}
			if !quoted && (c == '{' || c == '"') {
				return &ArrayError{p, "unexpected " + idtext.QuoteByte(c) + " in an unquoted element"}
			}
			if c == '\\' {
				if p++; p == len(s) {
					return &ArrayError{p, "unterminated array"}
				}
				c, end = s[p], n+1
			} else if !quoted && isSpace(c) {
				if n == 0 {
					start = p + 1
					continue
				}
			} else if !quoted {
				end = n + 1
			}
			if n == MaxElem {
				return &ArrayError{start, "element " + strconv.Itoa(i+1) + " longer than " + strconv.Itoa(MaxElem) + " bytes"}
			}
			buf[n] = c
			n++
		}
		if !quoted {
			if end < 0 {
				return &ArrayError{p, "empty element " + strconv.Itoa(i+1)}
			}
			n = end
		}
		p = skipSpace(s, p)
		if p == len(s) || s[p] != ',' && s[p] != '}' {
			return &ArrayError{p, "want ',' or '}' after element " + strconv.Itoa(i+1)}
		}
		null := !quoted && n == 4 && isNull(buf[:4]) && !escapedNull(s, start, p)
		if err := elem(i, buf[:n], null); err != nil {
			return err
		}
		if s[p] == '}' {
			return trailing(s, p+1)
		}
		p++
	}
}

// trailing returns an error if anything but white space follows p.
func trailing[T string | []byte](s T, p int) error {
	if p = skipSpace(s, p); p != len(s) {
		return &ArrayError{p, "text after the array's closing '}'"}
	}
	return nil
}

func skipSpace[T string | []byte](s T, p int) int {
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	return p
}

// isSpace reports the white space PostgreSQL's array_in skips.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isNull reports whether b spells NULL in any case.
func isNull(b []byte) bool {
	return b[0]|0x20 == 'n' && b[1]|0x20 == 'u' && b[2]|0x20 == 'l' && b[3]|0x20 == 'l'
}

// escapedNull reports whether s[from:to], an unquoted element, holds a
// backslash: \NULL is the text NULL, not SQL NULL.
func escapedNull[T string | []byte](s T, from, to int) bool {
	for ; from < to; from++ {
		if s[from] == '\\' {
			return true
		}
	}
	return false
}

// AppendArray appends the PostgreSQL array text of n elements to b: elem
// appends the text of element i, or reports null; texts are written quoted
// when quote is true, and must then be escaped already (a backslash as two).
// Null elements are written NULL.
func AppendArray(b []byte, n int, quote bool, elem func(b []byte, i int) ([]byte, bool)) []byte {
	b = append(b, '{')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if quote {
			b = append(b, '"')
		}
		var null bool
		mark := len(b)
		if b, null = elem(b, i); null {
			b = append(b[:mark-btoi(quote)], "NULL"...)
			continue
		}
		if quote {
			b = append(b, '"')
		}
	}
	return append(b, '}')
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ErrArrayType: ScanArray was given something other than a string, a []byte
// or nil.
var ErrArrayType = errors.New("not an array's text")

// ElemError is an element's error, returned by ScanArray.
type ElemError struct {
	Index int // 0-based
	Err   error
}

// Error names the element, counted from 1, and its error.
func (e *ElemError) Error() string {
	return "element " + strconv.Itoa(e.Index+1) + ": " + e.Err.Error()
}

// Unwrap returns the element's error.
func (e *ElemError) Unwrap() error { return e.Err }

// ScanArray reads src, a one-dimensional PostgreSQL array as drivers hand it
// to Scan, into a new slice, parsing each element with elem: text (a string,
// or a []byte starting with '{', as pgx stdlib and lib/pq give it) or the
// binary format (a []byte as pgx gives it to a sql.Scanner), whose elements
// elem gets raw unless the element type is a text type. For nil (SQL NULL)
// it returns a nil slice. Its errors are an *ArrayError, an *ElemError
// wrapping elem's error, or ErrArrayType.
func ScanArray[E any](src any, elem func(data []byte, null, raw bool) (E, error)) ([]E, error) {
	var out []E
	raw := false
	add := func(i int, data []byte, null bool) error {
		e, err := elem(data, null, raw)
		if err != nil {
			return &ElemError{i, err}
		}
		out = append(out, e)
		return nil
	}
	var err error
	switch src := src.(type) {
	case string:
		err = Array(src, add)
	case []byte:
		switch p := skipSpace(src, 0); {
		case src == nil:
			return nil, nil
		case p < len(src) && src[p] == '{':
			err = Array(src, add)
		default:
			raw = true
			err = BinaryArray(src, func(oid uint32) { raw = !textOID(oid) }, add)
		}
	case nil:
		return nil, nil
	default:
		return nil, ErrArrayType
	}
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []E{}
	}
	return out, nil
}

// textOID reports whether oid is a PostgreSQL text type: text, varchar,
// bpchar, name or unknown.
func textOID(oid uint32) bool {
	return oid == 25 || oid == 1043 || oid == 1042 || oid == 19 || oid == 705
}

// BinaryArray reads b, a PostgreSQL array in binary format (array_send), of
// at most one dimension: it calls elemType with the element type's OID,
// then elem for each element with its bytes (valid only during the call) or
// null true. Its own errors are *ArrayError.
func BinaryArray(b []byte, elemType func(oid uint32), elem func(i int, data []byte, null bool) error) error {
	if len(b) < 12 {
		return &ArrayError{0, "not a PostgreSQL array: " + strconv.Itoa(len(b)) + " bytes, neither text nor the binary format"}
	}
	ndim := binary.BigEndian.Uint32(b)
	elemType(binary.BigEndian.Uint32(b[8:]))
	if ndim == 0 {
		if len(b) != 12 {
			return &ArrayError{12, "bytes after an empty binary array"}
		}
		return nil
	}
	if ndim != 1 {
		return &ArrayError{0, "binary array of " + strconv.FormatUint(uint64(ndim), 10) + " dimensions: want one"}
	}
	if len(b) < 20 {
		return &ArrayError{len(b), "truncated binary array"}
	}
	n, p := binary.BigEndian.Uint32(b[12:]), 20
	for i := range int(min(n, 1<<30)) {
		if len(b)-p < 4 {
			return &ArrayError{p, "truncated binary array"}
		}
		size := binary.BigEndian.Uint32(b[p:])
		p += 4
		if size == 0xFFFFFFFF {
			if err := elem(i, nil, true); err != nil {
				return err
			}
			continue
		}
		if uint64(len(b)-p) < uint64(size) {
			return &ArrayError{p, "truncated binary array"}
		}
		if err := elem(i, b[p:p+int(size)], false); err != nil {
			return err
		}
		p += int(size)
	}
	if p != len(b) {
		return &ArrayError{p, "bytes after the binary array's elements"}
	}
	return nil
}

// ArrayScanError returns err, an error of ScanArray for src, as the
// package's error: a syntax error wrapping errArray with the input quoted,
// a Go type no array comes as wrapping errScanType, element errors as they
// are.
func ArrayScanError(err, errArray, errScanType error, typ string, src any) error {
	var ae *ArrayError
	switch {
	case errors.As(err, &ae):
		input := src
		if b, ok := src.([]byte); ok {
			input = string(b)
		}
		s := input.(string)
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return fmt.Errorf("%w %s: %s", errArray, strconv.Quote(s), ae)
	case err == ErrArrayType:
		return fmt.Errorf("%w: cannot scan %T into %s", errScanType, src, typ)
	}
	return err
}

// ScanSlice scans src into *dst as ScanArray does, leaving *dst unchanged on
// error; errors are as ArrayScanError returns them for typ.
func ScanSlice[E any](dst *[]E, src any, errArray, errScanType error, typ string, elem func(data []byte, null, raw bool) (E, error)) error {
	out, err := ScanArray(src, elem)
	if err != nil {
		return ArrayScanError(err, errArray, errScanType, typ, src)
	}
	*dst = out
	return nil
}

// SliceValue returns the array text of n elements as a driver.Value, a
// string, or nil (NULL) if isNil; size is an element's usual length.
func SliceValue(isNil bool, n, size int, quote bool, elem func(b []byte, i int) ([]byte, bool)) (driver.Value, error) {
	if isNil {
		return nil, nil
	}
	return string(AppendArray(make([]byte, 0, 2+n*(size+3)), n, quote, elem)), nil
}

// Dimensions returns what the Dimensions method of a Slice type's
// pgtype.ArrayGetter returns: nil (NULL) for a nil slice, else one
// dimension of n elements from 1.
func Dimensions(isNil bool, n int) []pgtype.ArrayDimension {
	if isNil {
		return nil
	}
	return []pgtype.ArrayDimension{{Length: int32(n), LowerBound: 1}}
}

// Refusal returns what the UUIDValue or BytesValue method of a Slice type
// returns, methods that exist only to refuse a parameter of the wrong
// kind: nil (NULL) for a nil slice, else the error format and args make.
func Refusal(isNil bool, format string, args ...any) error {
	if isNil {
		return nil
	}
	return fmt.Errorf(format, args...)
}
