//go:build go1.27

package ulidtype

import "uuid"

// StdUUID returns the same 16 bytes as the standard library's [uuid.UUID]
// (Go 1.27 and newer), whose String is the 36-character UUID form.
func (u ULID) StdUUID() uuid.UUID { return uuid.UUID(u) }

// FromStdUUID returns the ULID with the same 16 bytes as the standard
// library's [uuid.UUID] u (Go 1.27 and newer). Any UUID converts; the
// result's Timestamp is meaningful for a UUIDv7 or a ULID.
func FromStdUUID(u uuid.UUID) ULID { return ULID(u) }
