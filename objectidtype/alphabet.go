package objectidtype

import "github.com/pgid/pgid/internal/idtext"

// ShortAlphabet is the alphabet of the short form ([ObjectID.Short]), value
// 0 to 63: digits, lower-case letters, upper-case letters, '-' and '_'. The
// SQL functions of package migrations are generated from it (go generate
// ./migrations).
const ShortAlphabet = idtext.Short
