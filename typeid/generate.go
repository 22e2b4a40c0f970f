package typeid

import "github.com/pgid/pgid/ulidtype"

// generator makes the IDs of New. It is pgid's ULID generator in its zero
// state, and nothing in this package changes its layout: [ulidtype.LayoutV7]
// always, whatever [ulidtype.SetDefaultLayout] says, because the
// specification wants every generated TypeID to be a UUIDv7.
var generator ulidtype.Generator

// New returns a new ID: a UUIDv7 made from the current time by pgid's
// monotonic ULID generator in [ulidtype.LayoutV7]. It never fails, is safe
// for concurrent use, and each call returns a value larger than every
// earlier one from New in the process, whatever its prefix type (a
// sequence of its own, separate from [ulidtype.New]'s).
func New[P Prefix]() ID[P] { return ID[P]{b: generator.New()} }
