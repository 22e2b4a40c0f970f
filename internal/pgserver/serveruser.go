//go:build unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// DefaultUser is the user the embedded server runs as when this process is
// root and neither [EmbeddedOptions.RunAsUser] nor $PGID_POSTGRES_USER name
// another: a system account for it alone, which [StartEmbedded] creates
// with useradd when it is missing.
const DefaultUser = "pgid-embedded"

// credential is the unprivileged user the server runs as under root.
type credential struct {
	name     string
	uid, gid int
}

// serverUser returns the user the server runs as, this process being root:
// o.RunAsUser, else $PGID_POSTGRES_USER, else DefaultUser (created if
// missing). It refuses root and nobody: the server's files and signals
// must be out of reach of every process that is not the server's own, and
// nobody is the user of many daemons.
func serverUser(o *EmbeddedOptions, getenv func(string) string) (*credential, error) {
	name, from := o.RunAsUser, "the RunAsUser option"
	if name == "" {
		name, from = getenv(EnvUser), EnvUser
	}
	if name == "" {
		name, from = DefaultUser, "the default"
	}
	fix := "unset " + EnvUser + " (and RunAsUser) to use " + DefaultUser + ", a system user pgid creates for the embedded server alone, or name another such user there"
	if name == "nobody" || name == "nfsnobody" {
		return nil, fmt.Errorf("%w: %s (%s): the embedded PostgreSQL must not run as nobody, whom many daemons share: any of them could rewrite its pg_hba.conf and signal it; %s", ErrSharedUser, name, from, fix)
	}
	u, err := user.Lookup(name)
	var unknown user.UnknownUserError
	if errors.As(err, &unknown) && name == DefaultUser {
		if err := createUser(name); err != nil {
			return nil, err
		}
		u, err = user.Lookup(name)
	}
	if err != nil {
		return nil, fmt.Errorf("running as root, the embedded PostgreSQL runs as an unprivileged user (initdb refuses root), %s from %s: %w; create it (useradd --system --user-group --no-create-home --shell /usr/sbin/nologin %s), or %s", name, from, err, shQuote(name), fix)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", name, err)
	}
	if uid == 0 || gid == 0 {
		return nil, fmt.Errorf("user %s (%s) has uid %d, gid %d: the embedded PostgreSQL must run as an unprivileged user and group; %s", name, from, uid, gid, fix)
	}
	if uid == 65534 {
		return nil, fmt.Errorf("%w: %s (%s) has uid 65534, nobody's, whom many daemons share; %s", ErrSharedUser, name, from, fix)
	}
	return &credential{name: name, uid: uid, gid: gid}, nil
}

// createUser makes name a system user with a group of its own, no home
// and no login shell, with useradd from the system's directories (never
// from PATH: this process is root), once its path has passed the checks.
// Another process may make it at the same time: the caller looks it up
// again whatever useradd said.
func createUser(name string) error {
	useradd, err := lookSafe("useradd")
	if err == nil {
		useradd, err = resolvePath(pathRule{use: "useradd", fix: "create the user yourself"}, useradd, true)
	}
	if err != nil {
		return fmt.Errorf("running as root, the embedded PostgreSQL runs as the system user %s, which does not exist, and there is no usable useradd in %s to create it (%v): create it (a system user with a group of its own, no home, no login shell), or name another such user in %s", name, safePATH, err, EnvUser)
	}
	shell := "/bin/false"
	for _, s := range []string{"/usr/sbin/nologin", "/sbin/nologin"} {
		if _, err := os.Stat(s); err == nil {
			shell = s
			break
		}
	}
	cmd := command(context.Background(), useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
		"--shell", shell, "--comment", "pgid embedded PostgreSQL", name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, lerr := user.Lookup(name); lerr == nil {
			return nil // made by another process in the meantime
		}
		return fmt.Errorf("create the system user %s for the embedded PostgreSQL: %s: %w: %s", name, cmd, err, strings.TrimSpace(string(out)))
	}
	return nil
}
