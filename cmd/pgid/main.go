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
//	pgid convert [--json] --to ulid|uuid|hex|short ID...
//	pgid range --from T [--to T] [--kind ulid|objectid] [--json]
//	pgid migrate [--database-url URL] [--json] [up|down|status]
//	pgid schema [--check FILE]
//	pgid demo [--database-url URL] [--rows N]
//	pgid seal [--key-file F] [--json] ID...
//	pgid open [--key-file F] [--candidates] [--json] CODE...
//	pgid new-key [--id N] [--bytes 16|24|32]
//	pgid partition ensure|list --table T [--every W --ahead N --retain D --retire HOW] [--json]
//	pgid tail --table T [--since TIME|ID] [--enable LEAD] [--json]
//
// Run "pgid COMMAND -h" for what each command needs and does, with
// examples, and its flags; docs/CLI.md has more.
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
	"slices"
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
		{"inspect", "[--json] ID...", "detect an ID's kind and print its time, every text form and its bytes (IDs from stdin when none are given)", cmdInspect},
		{"convert", "[--json] --to ulid|uuid|hex|short ID...", "print IDs in another text form (IDs from stdin when none are given)", cmdConvert},
		{"range", "--from T [--to T] [--kind ulid|objectid] [--json]", "print the ID bounds of a time range and a WHERE clause", cmdRange},
		{"migrate", "[--database-url URL] [--json] [up|down|status]", "apply (up, the default) or revert (down) pgid's PostgreSQL migrations, or show where a database stands (status)", cmdMigrate},
		{"schema", "[--check FILE]", "print pgid's schema as one SQL file, for sqlc's schema list or another migration tool", cmdSchema},
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
	case "--version", "-version", "version":
		fmt.Fprintln(e.stdout, version())
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
		case errors.As(err, new(usageError)):
			fmt.Fprintf(e.stderr, "pgid %s: %s\n", c.name, message(c.name, err))
			return exitUsage
		default:
			fmt.Fprintf(e.stderr, "pgid %s: %s\n", c.name, message(c.name, err))
			return exitError
		}
	}
	fmt.Fprintf(e.stderr, "pgid: unknown command %q\n", args[0])
	topUsage(e.stderr)
	return exitUsage
}

// message is err's text for "pgid name: ...": the prefixes that pgid's
// packages put on their errors ("partition: ", "pgid migrations: ") and the
// command's own name are said once, by the caller, not again inside.
func message(name string, err error) string {
	noise := map[string]bool{name: true, "pgid " + name: true, "pgid": true,
		"partition": true, "migrations": true, "pgid migrations": true,
		"ulidtype": true, "objectidtype": true, "opaque": true}
	// One line: pgx's connection errors have a line per address tried,
	// often the same one twice (with and without TLS).
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	msg := strings.Join(lines, " ")
	parts := strings.Split(msg, ": ")
	kept := parts[:0]
	for _, p := range parts {
		if !noise[p] {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ": ")
}

func topUsage(w io.Writer) {
	fmt.Fprintln(w, "pgid: time-ordered IDs (ULID, ObjectId) for PostgreSQL\n\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  pgid %s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"pgid COMMAND -h\" for what a command needs and does, and its flags;")
	fmt.Fprintln(w, "\"pgid --version\" prints the version.")
	fmt.Fprintln(w, "Exit status 2 means bad input, 1 a failure.")
}

// newFlags returns the flag set of command name, writing usage to e.stderr.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("pgid "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	for _, c := range commands {
		if c.name == name {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: pgid %s %s\n  %s\n", c.name, c.args, c.summary)
				printHelp(fs, c.name)
			}
		}
	}
	return fs
}

// printHelp writes the help text of command name, if it has one, and the
// flags of fs.
func printHelp(fs *flag.FlagSet, name string) {
	if h := commandHelp[name]; h != "" {
		fmt.Fprintf(fs.Output(), "\n%s\n\n", strings.TrimRight(h, "\n"))
	}
	fmt.Fprintln(fs.Output(), "Flags (-x and --x are the same):")
	fs.PrintDefaults()
}

// parse parses args with fs and returns the positional arguments. Flags may
// follow positional arguments (pgid convert ID --to uuid), and "--" ends the
// flags. An argument that starts with '-' but reads as an ID or a public
// code (an ObjectId short form or a code starts with '-' once in 64) is
// positional, not an unknown flag. -h prints the usage to stdout. A flag
// error is a usageError of one line that says where to look.
func parse(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	flags, pos := splitArgs(fs, args)
	for _, a := range flags {
		switch a {
		case "-h", "-help", "--help", "--h":
			fs.SetOutput(e.stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
	}
	fs.SetOutput(io.Discard) // the error is reported in one line below
	if err := fs.Parse(flags); err != nil {
		msg := err.Error()
		if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok && len(bad) >= 10 {
			msg += fmt.Sprintf(`; if %s is an ID or a code, put it after "--": %s -- %s`, bad, fs.Name(), bad)
		}
		return nil, usagef("%s (%s -h lists the flags)", msg, fs.Name())
	}
	return append(pos, fs.Args()...), nil
}

// parseFlags parses args with fs as parse does, for a command that takes
// flags only: a positional argument is a usage error, followed by hint.
func parseFlags(e *env, fs *flag.FlagSet, args []string, hint ...string) error {
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q%s", pos[0], strings.Join(hint, ""))
	}
	return nil
}

// required refuses an empty value of the required flag name.
func required(name, value string) error {
	if value == "" {
		return usagef("--%s is required", name)
	}
	return nil
}

// splitArgs separates the flags of fs (with their values) from the
// positional arguments, keeping each group's order: everything after "--",
// arguments without a leading '-', and those that are IDs or codes are
// positional.
func splitArgs(fs *flag.FlagSet, args []string) (flags, pos []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(pos, args[i+1:]...)
		case len(a) < 2 || a[0] != '-':
			pos = append(pos, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil && looksLikeID(a) {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i]) // the flag's value, even "-1w"
		}
	}
	return flags, pos
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// looksLikeID reports whether a is an ID any command reads, or has the
// length and alphabet of a public code.
func looksLikeID(a string) bool {
	if _, err := parseAny(a); err == nil {
		return true
	}
	return looksLikeCode(a)
}

// oneOf checks that v is one of the allowed values of flag name.
func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return usagef("--%s %q: want one of %s", name, v, strings.Join(allowed, ", "))
}
