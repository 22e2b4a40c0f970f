// Package typeid provides TypeIDs whose prefix is part of the Go type: a
// UserID and an OrderID are different types, so the compiler refuses one
// where the other is wanted, and each is stored as a 16-byte PostgreSQL uuid
// (or pgid.ulid) while APIs see the TypeID text.
//
// A TypeID (github.com/jetify-com/typeid, specification v0.3.0) is a type
// prefix, an underscore and 26 lower-case Crockford base32 characters of a
// UUID, usually a UUIDv7: user_01h455vb4pex5vsknk084sn02q. A ULID that pgid
// makes in [ulidtype.LayoutV7] is a UUIDv7 and uses the same 130-bit base32
// encoding, so the suffix is its 26-character text in lower case and the
// uuid in the database is its 16 bytes: the text above is the UUID
// 01890a5d-ac96-774b-bcce-b302099a8057.
//
// Declare a prefix type, an empty struct whose Prefix method returns the
// prefix, and name the ID type with an alias (an alias keeps the methods; a
// defined type "type UserID typeid.ID[userPrefix]" would have none):
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
// ID[UserPrefix] and ID[OrderPrefix] are distinct structs holding the 16
// bytes: neither is assignable nor convertible to the other
// (OrderID(userID) does not compile), and a deliberate change of prefix
// goes through the bytes: FromUUID[OrderPrefix](userID.UUID()).
//
// The prefix must follow the specification: at most 63 characters of a-z
// and _, starting and ending with a letter, or empty (then the text is the
// 26 characters alone). Parse and the text marshallers check it every time
// ([ErrPrefix]); [ValidPrefix] checks it once, in a test or an init.
//
// # Text
//
// String, MarshalText, JSON and [Parse] use the TypeID text. Parsing is
// strict, as the specification asks: the prefix must be exactly the type's,
// the separator present only with a non-empty prefix, the suffix 26
// lower-case characters of the alphabet 0123456789abcdefghjkmnpqrstvwxyz
// whose first is at most '7' (128 bits). UUIDs of any version and variant
// are accepted when parsed or converted, as the specification allows;
// [New] makes only UUIDv7 values. Errors wrap a sentinel ([ErrPrefix],
// [ErrWrongPrefix], [ErrLength], [ErrCharacter], [ErrOverflow]) and name the
// problem and its byte position.
//
// # Prefixes known at run time
//
// [AnyID] holds a prefix and a UUID, for a prefix from configuration or for
// any TypeID in a log line or a request: [ParseAny] takes any valid prefix,
// [ParseWithPrefix] the one given (as strictly as [Parse]), [NewAny] and
// [AnyFromUUID] make one. [FromAny] turns it into an ID[P] after checking
// that the prefix is P's, failing with [ErrWrongPrefix] naming both;
// [ID.Any] goes back.
//
//	a, err := typeid.ParseAny("order_01h455vb4pex5vsknk084sn02q") // a.Prefix() == "order"
//	id, err := typeid.FromAny[OrderPrefix](a)                    // an OrderID; FromAny[UserPrefix] fails
//
// A uuid column holds no prefix, so in a database the prefix comes from the
// caller: AnyID binds its UUID, and scanning a uuid into an AnyID keeps the
// prefix it had ([AnyFromUUID] sets it); a TypeID text from a text column
// brings its own.
//
// # Databases
//
// An ID is stored as a uuid, 16 bytes in the table and in every index,
// instead of the 27 to 91 bytes of its text (see the README). Through
// database/sql, [ID.Value] binds the UUID text and [ID.Scan] takes a uuid
// in every form a driver hands back, or the TypeID text from a text column.
// With pgx v5, ID is a [pgtype.UUIDScanner] and [pgtype.UUIDValuer]: binary,
// without allocation. [NullID], sql.Null[ID[P]] and *ID[P] carry NULL.
// [Slice] and [NullSlice] bind and scan uuid[] arrays through database/sql
// (id = ANY($1), array_agg(id)) with no wrapper. In SQL,
// pgid.typeid_text(prefix, id) and pgid.typeid_uuid(text, prefix) convert
// between the two (schema pgid: see package migrations).
//
// The time helpers [MinAt], [MaxAt], [Range], [Since] and [Until] give the
// bounds of a time window as IDs of the type, for
//
//	WHERE id >= $1 AND id < $2
//
// With Go 1.27 or newer, [ID.StdUUID] and [FromStdUUID] convert to and from
// the standard library's uuid.UUID.
package typeid
