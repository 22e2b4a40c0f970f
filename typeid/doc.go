// Package typeid provides TypeIDs whose prefix is part of the Go type: a
// UserID and an OrderID are different types, so the compiler refuses one
// where the other is wanted, and each is stored as a 16-byte PostgreSQL uuid
// (or pgid.ulid) while APIs see the TypeID text
// (user_01h455vb4pex5vsknk084sn02q, specification v0.3.0). A ULID that pgid
// makes in [ulidtype.LayoutV7] is a UUIDv7 with the same suffix text.
//
// Declare a prefix type and name the ID type with an alias (an alias keeps
// the methods; a defined type would have none):
//
//	type UserPrefix struct{}
//
//	func (UserPrefix) Prefix() string { return "user" }
//
//	type UserID = typeid.ID[UserPrefix]
//
//	id := typeid.New[UserPrefix]()          // a UUIDv7, strictly increasing in the process
//	id, err := typeid.Parse[UserPrefix](s)  // "user_…" only; "order_…" fails with ErrWrongPrefix
//
// Parsing is strict, as the specification asks; errors wrap a sentinel
// ([ErrPrefix], [ErrWrongPrefix], [ErrLength], [ErrCharacter],
// [ErrOverflow]) and name the byte position. [AnyID] holds a prefix known
// only at run time. See docs/TYPEID.md for prefixes, text, databases
// (database/sql, pgx, arrays, SQL functions) and time windows.
package typeid
