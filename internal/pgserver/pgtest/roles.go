package pgtest

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// WithUser returns dsn connecting as role user, whose password is its name
// (see [NewRole]): servers with trust authentication ignore it, servers with
// password authentication (the embedded PostgreSQL) ask for it.
func WithUser(dsn, user string) string {
	if strings.Contains(dsn, "://") {
		if u, err := url.Parse(dsn); err == nil {
			u.User = url.UserPassword(user, user)
			return u.String()
		}
	}
	return dsn + " user=" + user + " password=" + user
}

// NewRole creates a LOGIN role with a random name for t, its password the
// same as its name, and when t ends drops what it owns in the database of
// owner (a superuser connection to it) and the role.
func NewRole(t testing.TB, owner *pgx.Conn) string {
	t.Helper()
	role := "pgid_app_" + RandomHex(4)
	if _, err := owner.Exec(context.Background(), "CREATE ROLE "+role+" LOGIN PASSWORD '"+role+"'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		owner.Exec(ctx, "DROP OWNED BY "+role)
		if _, err := (Admin{}).Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	return role
}

// SQLState returns err's SQLSTATE if it is a PostgreSQL error, else "".
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
