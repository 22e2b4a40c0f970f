//go:build go1.27

package typeid

import "uuid"

// StdUUID returns the same 16 bytes as the standard library's [uuid.UUID]
// (Go 1.27 and newer).
func (id ID[P]) StdUUID() uuid.UUID { return uuid.UUID(id.b) }

// FromStdUUID returns the ID with the 16 bytes of the standard library's
// [uuid.UUID] u, of any version (Go 1.27 and newer).
func FromStdUUID[P Prefix](u uuid.UUID) ID[P] { return ID[P]{b: u} }
