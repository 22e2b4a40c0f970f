//go:build unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// ErrNoCitus is what [StartCitus] fails with when the binaries have no
// Citus extension (citus.so in their lib directory): build it with
// .ci/citus-build (docs/CITUS.md).
var ErrNoCitus = errors.New("pgserver: no Citus extension in the PostgreSQL binaries")

// Cluster is a Citus cluster [StartCitus] started: a coordinator and its
// workers, each an embedded server, all with the same postgres password.
type Cluster struct {
	// Coordinator is the node applications connect to.
	Coordinator *Server
	// Workers hold the distributed tables' shards.
	Workers []*Server

	mu       sync.Mutex
	password string
}

// Nodes returns the coordinator, then the workers.
func (c *Cluster) Nodes() []*Server { return append([]*Server{c.Coordinator}, c.Workers...) }

// Close stops every node (the workers first) and removes their directories.
func (c *Cluster) Close() error {
	if c == nil {
		return nil
	}
	var errs []error
	for i := len(c.Workers) - 1; i >= 0; i-- {
		errs = append(errs, c.Workers[i].Close())
	}
	return errors.Join(append(errs, c.Coordinator.Close())...)
}

// StartCitus starts a Citus cluster of a coordinator and n workers, each an
// embedded server ([StartEmbedded] with o, plus the settings Citus needs:
// shared_preload_libraries=citus, max_prepared_transactions for its
// two-phase commits, no statistics collection over the network) on a free
// port of 127.0.0.1, and sets up its database postgres with
// [Cluster.CreateDatabase]'s steps. As root the servers run as
// o.RunAsUser, as StartEmbedded's do. The nodes authenticate to each other
// with the shared password (SCRAM), which pg_dist_authinfo holds for the
// role postgres; [Cluster.Authorize] adds other roles. Close stops them.
// Without citus.so in the binaries' lib directory it fails with
// [ErrNoCitus] before starting anything.
func StartCitus(ctx context.Context, o EmbeddedOptions, n int) (*Cluster, error) {
	if n < 1 {
		return nil, errors.New("pgserver: a Citus cluster needs at least one worker")
	}
	password, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	o.password = password
	o.Settings = append([]string{"shared_preload_libraries=citus", "max_prepared_transactions=100",
		"citus.enable_statistics_collection=off", "max_worker_processes=32"}, o.Settings...)
	c := &Cluster{password: password}
	for i := 0; i <= n; i++ {
		s, err := StartEmbedded(ctx, o)
		if err != nil {
			c.closeStarted()
			if strings.Contains(err.Error(), `could not access file "citus"`) {
				return nil, fmt.Errorf("%w: %v", ErrNoCitus, err)
			}
			return nil, fmt.Errorf("start Citus node %d of %d: %w", i+1, n+1, err)
		}
		if i == 0 {
			c.Coordinator = s
		} else {
			c.Workers = append(c.Workers, s)
		}
	}
	if err := c.setup(ctx, "postgres"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// closeStarted stops the nodes started so far.
func (c *Cluster) closeStarted() {
	if c.Coordinator != nil {
		c.Close()
	}
}

// DSN returns the DSN of database db on node s (one of c's).
func (c *Cluster) DSN(s *Server, db string) string {
	u, err := url.Parse(s.DSN)
	if err != nil {
		return s.DSN
	}
	u.Path = "/" + db
	return u.String()
}

// CreateDatabase creates database name on every node, creates the citus
// extension in it on each, and on the coordinator registers the
// coordinator (citus_set_coordinator_host) and the workers
// (citus_add_node); it returns the coordinator's DSN for it.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	for _, s := range c.Nodes() {
		conn, err := pgx.Connect(ctx, s.DSN)
		if err != nil {
			return "", err
		}
		// Not propagated by Citus: made on each node here.
		_, err = conn.Exec(ctx, "SET citus.enable_create_database_propagation = off")
		if err == nil {
			_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		}
		conn.Close(context.Background())
		if err != nil {
			return "", fmt.Errorf("create database %s on %s: %w", name, nodeAddr(s), err)
		}
	}
	if err := c.setup(ctx, name); err != nil {
		return "", err
	}
	return c.DSN(c.Coordinator, name), nil
}

// DropDatabase drops database name on every node.
func (c *Cluster) DropDatabase(ctx context.Context, name string) error {
	var errs []error
	for _, s := range c.Nodes() {
		conn, err := pgx.Connect(ctx, s.DSN)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, err = conn.Exec(ctx, "SET citus.enable_create_database_propagation = off")
		if err == nil {
			_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		}
		conn.Close(context.Background())
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// setup makes database db of every node a part of the cluster.
func (c *Cluster) setup(ctx context.Context, db string) error {
	for _, s := range c.Nodes() {
		if err := c.exec(ctx, s, db, "CREATE EXTENSION IF NOT EXISTS citus"); err != nil {
			if strings.Contains(err.Error(), "citus") && strings.Contains(err.Error(), "not available") {
				return fmt.Errorf("%w: %v", ErrNoCitus, err)
			}
			return err
		}
		// Every node connects to the others as postgres with the shared
		// password (nodeid 0: any node).
		if err := c.exec(ctx, s, db, "INSERT INTO pg_catalog.pg_dist_authinfo (nodeid, rolename, authinfo) VALUES (0, 'postgres', $1) ON CONFLICT DO NOTHING",
			"password="+c.password); err != nil {
			return err
		}
	}
	if err := c.exec(ctx, c.Coordinator, db, "SELECT pg_catalog.citus_set_coordinator_host('127.0.0.1', $1)", nodePort(c.Coordinator)); err != nil {
		return err
	}
	for _, w := range c.Workers {
		if err := c.exec(ctx, c.Coordinator, db, "SELECT pg_catalog.citus_add_node('127.0.0.1', $1)", nodePort(w)); err != nil {
			return err
		}
	}
	return nil
}

// Authorize lets role log in from one node to the others with password in
// database db (a row of pg_dist_authinfo on every node): Citus connects to
// the workers as the session's role. The role itself is made on the
// coordinator (Citus propagates CREATE ROLE).
func (c *Cluster) Authorize(ctx context.Context, db, role, password string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.Nodes() {
		if err := c.exec(ctx, s, db, "INSERT INTO pg_catalog.pg_dist_authinfo (nodeid, rolename, authinfo) VALUES (0, $1, $2) ON CONFLICT DO NOTHING",
			role, "password="+password); err != nil {
			return err
		}
	}
	return nil
}

// exec runs one statement in database db of node s.
func (c *Cluster) exec(ctx context.Context, s *Server, db, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, c.DSN(s, db))
	if err != nil {
		return fmt.Errorf("citus: connect to %s/%s: %w", nodeAddr(s), db, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("citus: %s on %s/%s: %w", sql, nodeAddr(s), db, err)
	}
	return nil
}

func nodeAddr(s *Server) string {
	u, err := url.Parse(s.DSN)
	if err != nil {
		return "?"
	}
	return u.Host
}

func nodePort(s *Server) int {
	u, err := url.Parse(s.DSN)
	if err != nil {
		return 0
	}
	var p int
	fmt.Sscan(u.Port(), &p)
	return p
}
