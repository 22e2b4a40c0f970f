// Command pgid makes, reads and converts pgid's time-ordered IDs (ULID and
// ObjectId), prints the ID bounds of a time range, applies pgid's
// PostgreSQL migrations, and runs a demo of the whole library against a real
// PostgreSQL: the one at --database-url / DATABASE_URL, the docker-compose
// service, or an embedded PostgreSQL it starts and removes itself.
//
// Usage:
//
//	pgid new ulid|objectid [-n N] [--format text|uuid|hex|short|json]
//	pgid inspect [--json] ID...
//	pgid convert [--json] ID --to ulid|uuid|hex|short
//	pgid range --from T --to T [--kind ulid|objectid] [--json]
//	pgid migrate [--database-url URL] [--json] [up|down]
//	pgid demo [--database-url URL] [--rows N]
//	pgid seal [--key-file F] [--json] ID...
//	pgid open [--key-file F] [--candidates] [--json] CODE...
//	pgid new-key [--id N] [--bytes 16|24|32]
//	pgid partition ensure|list --table T [--every W --ahead N --retain D --retire HOW] [--json]
//	pgid tail --table T [--since TIME|ID] [--enable LEAD] [--json]
//
// Run "pgid COMMAND -h" for each command's flags; docs/CLI.md has examples.
// Exit status: 0 on success, 2 for bad input (flags, IDs, times), 1 when the
// work itself failed (e.g. no database).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command failed
	exitUsage = 2 // bad input: flags, arguments, IDs, times
)

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, e *env, args []string) error
}

// commands is set in init: the commands' usage functions read it.
var commands []command

func init() {
	commands = []command{
		{"new", "ulid|objectid [-n N] [--format text|uuid|hex|short|json]", "make new IDs", cmdNew},
		{"inspect", "[--json] ID...", "detect an ID's kind and print its time, every text form and its bytes", cmdInspect},
		{"convert", "[--json] ID --to ulid|uuid|hex|short", "print an ID in another text form", cmdConvert},
		{"range", "--from T --to T [--kind ulid|objectid] [--json]", "print the ID bounds of a time range and a WHERE clause", cmdRange},
		{"migrate", "[--database-url URL] [--json] [up|down]", "apply (up, the default) or revert (down) pgid's PostgreSQL migrations", cmdMigrate},
		{"demo", "[--database-url URL] [--rows N]", "load ULID and UUIDv4 keys into PostgreSQL and compare them, end to end", cmdDemo},
		{"seal", "[--key-file F] [--json] ID...", "print IDs' public codes (keyed, opaque; see package opaque)", cmdSeal},
		{"open", "[--key-file F] [--candidates] [--json] CODE...", "print the IDs of public codes", cmdOpen},
		{"new-key", "[--id N] [--bytes 16|24|32]", "print a new random key line for --key-file", cmdNewKey},
		{"partition", "ensure|list --table T [--every W --ahead N --retain D --retire HOW] [--json]", "keep a table partitioned by RANGE (id) in time partitions; list them", cmdPartition},
		{"tail", "--table T [--since TIME|ID] [--enable LEAD] [--json]", "print a table's rows in ID order as they become safe to read, until interrupted", cmdTail},
	}
}

// env is what a command writes to.
type env struct {
	stdin          io.Reader // IDs or codes when none are given as arguments; nil: none
	stdout, stderr io.Writer
	getenv         func(string) string
}

// usageError is bad input: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// run is the whole program: it runs the command in args and returns the exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, &env{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv})
}

func runEnv(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		topUsage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		topUsage(e.stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errFlag):
			return exitUsage // the flag package printed the error and the usage
		case errors.As(err, new(usageError)):
			fmt.Fprintf(e.stderr, "pgid %s: %v\n", c.name, err)
			return exitUsage
		default:
			fmt.Fprintf(e.stderr, "pgid %s: %v\n", c.name, err)
			return exitError
		}
	}
	fmt.Fprintf(e.stderr, "pgid: unknown command %q\n", args[0])
	topUsage(e.stderr)
	return exitUsage
}

func topUsage(w io.Writer) {
	fmt.Fprintln(w, "pgid: time-ordered IDs (ULID, ObjectId) for PostgreSQL\n\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  pgid %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"pgid COMMAND -h\" for a command's flags. Exit status 2 means bad input, 1 a failure.")
}

// newFlags returns the flag set of command name, writing usage to e.stderr.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("pgid "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	for _, c := range commands {
		if c.name == name {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: pgid %s %s\n  %s\n", c.name, c.args, c.summary)
				fmt.Fprintln(fs.Output(), "Flags (-x and --x are the same):")
				fs.PrintDefaults()
			}
		}
	}
	return fs
}

// parse parses args with fs, allowing flags after positional arguments
// (pgid convert ID --to uuid); "--" ends the flags. It returns the
// positional arguments. Flag errors are usage errors, already reported by
// the flag package.
func parse(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(e.stdout) // asked for: stdout
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if rest follows one: everything is positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError is a flag parsing error; the flag package has printed it with
// the usage already, so run adds only the exit status.
type flagError struct{ err error }

func (f flagError) Error() string { return f.err.Error() }

func (f flagError) Is(target error) bool { return target == errFlag }

var errFlag = errors.New("flag error")

// oneOf checks that v is one of the allowed values of flag name.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usagef("--%s %q: want one of %s", name, v, strings.Join(allowed, ", "))
}
