// Package nullid holds the methods the nullable ID types (ulidtype.NullULID,
// objectidtype.NullObjectID, typeid.NullID) share, written once: each
// takes the ID type's own method as a method expression. They are small
// enough to inline, so the method is called directly and a scanned value
// stays on the stack.
package nullid

import "database/sql/driver"

// Scan scans src into *id and sets *valid: NULL (nil, or a nil []byte)
// sets *valid to false and *id to the zero ID; anything else is scanned by
// scan into a copy of *id. On error neither changes.
func Scan[T any](id *T, valid *bool, src any, scan func(*T, any) error) error {
	if b, isBytes := src.([]byte); src == nil || isBytes && b == nil {
		var zero T
		*id, *valid = zero, false
		return nil
	}
	v := *id
	if err := scan(&v, src); err != nil {
		return err
	}
	*id, *valid = v, true
	return nil
}

// UnmarshalJSON is Scan for JSON: null sets *valid to false and *id to the
// zero ID, anything else is decoded by unmarshal. On error neither changes.
func UnmarshalJSON[T any](id *T, valid *bool, data []byte, unmarshal func(*T, []byte) error) error {
	if string(data) == "null" {
		var zero T
		*id, *valid = zero, false
		return nil
	}
	v := *id
	if err := unmarshal(&v, data); err != nil {
		return err
	}
	*id, *valid = v, true
	return nil
}

// Value returns nil (NULL) if not valid, else value(id).
func Value[T any](id T, valid bool, value func(T) (driver.Value, error)) (driver.Value, error) {
	if !valid {
		return nil, nil
	}
	return value(id)
}

// String returns "NULL" if not valid, else str(id).
func String[T any](id T, valid bool, str func(T) string) string {
	if !valid {
		return "NULL"
	}
	return str(id)
}

// MarshalJSON returns null if not valid, else marshal(id).
func MarshalJSON[T any](id T, valid bool, marshal func(T) ([]byte, error)) ([]byte, error) {
	if !valid {
		return []byte("null"), nil
	}
	return marshal(id)
}
