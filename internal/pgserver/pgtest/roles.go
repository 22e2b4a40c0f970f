package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

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

// DropRole drops role when t ends, once the databases t made are gone (a
// role that owns objects in one cannot be dropped): at once where they are
// dropped at once, else after [Main]'s background drops, failing the binary
// if it cannot. Call it before the test asks for its databases.
func DropRole(t testing.TB, role string) {
	t.Helper()
	t.Cleanup(func() {
		if opts != nil && opts.Parallel > 0 {
			dropMu.Lock()
			rolesLater = append(rolesLater, role)
			dropMu.Unlock()
			return
		}
		if err := dropRole(role); err != nil {
			t.Error(err)
		}
	})
}

// dropRole drops role if it exists.
func dropRole(role string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := (Admin{}).Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()); err != nil {
		return fmt.Errorf("drop role %s: %w", role, err)
	}
	return nil
}

// rolesLater are the roles DropRole drops after the background drops;
// dropMu guards it.
var rolesLater []string

// dropRolesLater drops rolesLater and reports whether it could, printing
// the failures.
func dropRolesLater() bool {
	dropMu.Lock()
	defer dropMu.Unlock()
	ok := true
	for _, role := range rolesLater {
		if err := dropRole(role); err != nil {
			fmt.Fprintf(os.Stderr, "%s: FAIL: %v\n", opts.Name, err)
			ok = false
		}
	}
	rolesLater = nil
	return ok
}
