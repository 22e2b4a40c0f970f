package ulidtype

import "github.com/pgid/pgid/internal/idtext"

// Alphabet is the Crockford base32 alphabet of the canonical text form,
// value 0 to 31: digits and upper-case letters without I, L, O and U.
// Parsing also accepts the lower-case letters. The SQL functions of package
// migrations are generated from it (go generate ./migrations).
const Alphabet = idtext.Crockford
