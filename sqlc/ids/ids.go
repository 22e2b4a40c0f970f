// Package ids declares the sqlc example's typed IDs: TypeIDs (package
// typeid) stored as uuid, named with an alias so that sqlc.yaml can name
// them in a column override (sqlc's go_type cannot spell a generic type's
// instantiation) and they keep typeid.ID's methods.
package ids

import "github.com/pgid/pgid/typeid"

// UserPrefix is the prefix type of [UserID]: "user".
type UserPrefix struct{}

// Prefix returns "user".
func (UserPrefix) Prefix() string { return "user" }

// UserID is a user's ID: written user_01h455vb4pex5vsknk084sn02q in JSON
// and text, stored as a 16-byte uuid.
type UserID = typeid.ID[UserPrefix]
