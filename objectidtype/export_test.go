package objectidtype

import "github.com/jackc/pgx/v5/pgtype"

// registerPgx is pgidpgx.Register, which this package's own tests cannot
// import (pgidpgx imports objectidtype). pgidpgx_external_test.go sets it.
var registerPgx func(*pgtype.Map)

// SetRegisterPgx sets registerPgx; it exists only in this package's tests.
func SetRegisterPgx(f func(*pgtype.Map)) { registerPgx = f }
