package ulidtype_test

import (
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// The package's own pgx tests register through pgidpgx.Register, the
// function users call.
func init() { ulidtype.SetRegisterPgx(pgidpgx.Register) }
