package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/partition"
)

// ---- partition

func cmdPartition(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: ensure or list (pgid partition -h)")
	}
	switch args[0] {
	case "ensure":
		return cmdPartitionEnsure(ctx, e, args[1:])
	case "list":
		return cmdPartitionList(ctx, e, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(e.stdout, `Usage: pgid partition ensure|list --table T [flags]
  ensure  create the partitions of a table partitioned by RANGE (id), keep some
          ready ahead of now, and retire those older than the retention
  list    show each partition with its time range and row estimate

%s
`, strings.TrimRight(commandHelp["partition"], "\n"))
		return nil
	}
	return usagef("unknown subcommand %q: want ensure or list", args[0])
}

func cmdPartitionEnsure(ctx context.Context, e *env, args []string) error {
	fs := partitionFlags(e, "ensure --table T --every W [flags]")
	dbURL := dbFlag(fs)
	f := ensureFlags{
		table:    fs.String("table", "", "the table partitioned by RANGE (id), as SQL names it: events, app.events"),
		every:    fs.String("every", "day", "partition width: hour, day, week, month, year, or N of them (6h, 2w, 3months, 90s)"),
		ahead:    fs.Int("ahead", 2, "partitions to keep ready after the current one"),
		retain:   fs.String("retain", "", "retire partitions whose whole range is older than this (30d, 12months); empty keeps all"),
		retire:   fs.String("retire", "drop", "how to retire: drop, detach, detach-concurrently or detach-concurrently-drop"),
		kind:     fs.String("kind", "any", "the key's kind, checked against the column: any, ulid or objectid"),
		at:       fs.String("at", "", "the time the current partition holds (RFC 3339, a date, or -24h); default the server's now()"),
		retainAt: fs.String("retain-at", "", "the time retention counts back from, if not --at (RFC 3339, a date, or -24h)"),
		dryRun:   fs.Bool("dry-run", false, "change nothing; print what would be created, detached, dropped and kept"),
		cascade: fs.Bool("cascade-into-retained", false, "let foreign keys (ON DELETE CASCADE, SET NULL, SET DEFAULT) delete or change\n"+
			"rows of the table younger than the cut when an expired partition goes; without it such a partition is kept"),
	}
	asJSON := fs.Bool("json", false, `print {"created", "detached", "dropped", "kept", "fk_actions", "default", "dry_run"}`)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	plan, err := f.plan()
	if err != nil {
		return err
	}
	var r partition.Report
	err = withDB(ctx, e, "partition ensure", *dbURL, func(conn *pgx.Conn) error {
		r, err = partition.Ensure(ctx, conn, plan)
		return err
	})
	if err != nil && !errors.Is(err, partition.ErrKept) && !errors.Is(err, partition.ErrRangeEnd) {
		return err
	}
	// What was done is printed also when some partitions were kept or the
	// plan reached the last time the IDs can hold; the exit status is then
	// 1, with the server's DETAIL and HINT in err.
	if err == nil && r.Default.Rows > 0 {
		err = fmt.Errorf("the DEFAULT partition %s holds %d rows made from %s to %s: their partitions were missing when they came; "+
			"retention never touches them and they block creating their range (docs/PARTITIONING.md, \"Rows in the DEFAULT partition\")",
			r.Default.Name, r.Default.Rows, fmtTime(r.Default.Oldest), fmtTime(r.Default.Newest))
	}
	if *asJSON {
		if werr := printEnsureJSON(e.stdout, r); werr != nil {
			return werr
		}
		return err
	}
	if r.Empty() {
		fmt.Fprintf(e.stdout, "%s: nothing to do\n", plan.Parent)
		return nil
	}
	printEnsure(e.stdout, r)
	return err
}

// ensureFlags are the flags of partition ensure that make its plan.
type ensureFlags struct {
	table, every, retain, retire, kind, at, retainAt *string
	ahead                                            *int
	dryRun, cascade                                  *bool
}

// plan reads the flags into a plan; a flag that does not parse is a usage
// error naming it.
func (f ensureFlags) plan() (partition.Plan, error) {
	if err := required("table", *f.table); err != nil {
		return partition.Plan{}, err
	}
	plan := partition.Plan{Parent: *f.table, Ahead: *f.ahead, DryRun: *f.dryRun, CascadeIntoRetained: *f.cascade}
	now := time.Now()
	for _, p := range []struct {
		flag, value string
		optional    bool // skipped when empty: the plan's zero value
		parse       func(string) error
	}{
		{"every", *f.every, false, func(s string) (err error) { plan.Every, err = partition.ParseSpan(s); return err }},
		{"retain", *f.retain, true, func(s string) (err error) { plan.Retain, err = partition.ParseSpan(s); return err }},
		{"retire", *f.retire, false, func(s string) (err error) { plan.Retire, err = partition.ParseRetire(s); return err }},
		{"kind", *f.kind, false, func(s string) (err error) { plan.Kind, err = partition.ParseKind(s); return err }},
		{"at", *f.at, true, func(s string) (err error) { plan.Now, err = parseWhen(s, now); return err }},
		{"retain-at", *f.retainAt, true, func(s string) (err error) { plan.RetainAt, err = parseWhen(s, now); return err }},
	} {
		if p.optional && p.value == "" {
			continue
		}
		if err := p.parse(p.value); err != nil {
			return partition.Plan{}, usageError{fmt.Errorf("--%s: %w", p.flag, err)}
		}
	}
	return plan, nil
}

// printEnsureJSON writes r as partition ensure --json does.
func printEnsureJSON(w io.Writer, r partition.Report) error {
	kept := make([]jsonKept, 0, len(r.Kept))
	for _, k := range r.Kept {
		kept = append(kept, jsonKept{jsonParts([]partition.Partition{k.Partition})[0], k.Reason, k.Detail, k.Hint, k.Constraint})
	}
	var dflt *jsonDefault
	if r.Default.Name != "" {
		dflt = &jsonDefault{Name: r.Default.Name, Rows: r.Default.Rows}
		if r.Default.Rows > 0 {
			dflt.Oldest, dflt.Newest = fmtTime(r.Default.Oldest), fmtTime(r.Default.Newest)
		}
	}
	return writeJSON(w, map[string]any{
		"created": jsonParts(r.Created), "detached": jsonParts(r.Detached), "dropped": jsonParts(r.Dropped),
		"kept": kept, "fk_actions": append([]partition.FKAction{}, r.FKActions...), "default": dflt, "dry_run": r.DryRun,
	})
}

// printEnsure writes r as lines: each partition created, detached, dropped
// and kept (each retired or kept one followed by what its foreign keys do,
// or would do, once), then the DEFAULT partition's rows.
func printEnsure(w io.Writer, r partition.Report) {
	prefix := ""
	if r.DryRun {
		prefix = "would be "
	}
	fks := map[string][]partition.FKAction{}
	for _, a := range r.FKActions {
		fks[a.Partition] = append(fks[a.Partition], a)
	}
	printFKs := func(name string) {
		for _, a := range fks[name] {
			fmt.Fprintf(w, "%9s foreign key: %s\n", "", a)
		}
		delete(fks, name)
	}
	for _, step := range []struct {
		what  string
		parts []partition.Partition
	}{{"created", r.Created}, {"detached", r.Detached}, {"dropped", r.Dropped}} {
		for _, p := range step.parts {
			fmt.Fprintf(w, "%-9s %s  %s\n", prefix+step.what, p.Name, timeRange(p))
			printFKs(p.Name)
		}
	}
	for _, k := range r.Kept {
		fmt.Fprintf(w, "%-9s %s  %s  %s\n", prefix+"kept", k.Name, timeRange(k.Partition), k.Reason)
		printFKs(k.Name)
	}
	if r.Default.Rows > 0 {
		fmt.Fprintf(w, "%-9s %s  %d rows made from %s to %s\n", "default", r.Default.Name, r.Default.Rows,
			fmtTime(r.Default.Oldest), fmtTime(r.Default.Newest))
	}
}

func cmdPartitionList(ctx context.Context, e *env, args []string) error {
	fs := partitionFlags(e, "list --table T [flags]")
	dbURL := dbFlag(fs)
	table := fs.String("table", "", "the partitioned table, as SQL names it")
	asJSON := fs.Bool("json", false, "print a list of partitions")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := required("table", *table); err != nil {
		return err
	}
	return withDB(ctx, e, "partition list", *dbURL, func(conn *pgx.Conn) error {
		parts, err := partition.List(ctx, conn, *table)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, jsonParts(parts))
		}
		printPartitions(e.stdout, parts)
		return nil
	})
}

// partitionFlags returns the flag set of "pgid partition <usage>".
func partitionFlags(e *env, usage string) *flag.FlagSet {
	fs := newFlags(e, "partition")
	sub, _, _ := strings.Cut(usage, " ")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pgid partition %s\n", usage)
		printHelp(fs, "partition "+sub)
	}
	return fs
}

// printPartitions writes one line a partition: name, time range, rows.
func printPartitions(w io.Writer, parts []partition.Partition) {
	fmt.Fprintf(w, "%-40s %-51s %s\n", "partition", "holds IDs made in", "rows (estimate)")
	for _, p := range parts {
		rows := "?"
		if p.RowEstimate >= 0 {
			rows = thousands(p.RowEstimate)
		}
		fmt.Fprintf(w, "%-40s %-51s %s\n", p.Name, timeRange(p), rows)
	}
}

// timeRange is [lower, upper) of p, DEFAULT, or MINVALUE/MAXVALUE ends.
func timeRange(p partition.Partition) string {
	if p.Default {
		return "DEFAULT"
	}
	end := func(t time.Time, open string) string {
		if t.IsZero() {
			return open
		}
		return fmtTime(t)
	}
	return "[" + end(p.Lower, "MINVALUE") + ", " + end(p.Upper, "MAXVALUE") + ")"
}

// jsonKept is a kept partition as --json prints it.
type jsonKept struct {
	jsonPart
	Reason     string `json:"reason"`
	Detail     string `json:"detail,omitempty"`
	Hint       string `json:"hint,omitempty"`
	Constraint string `json:"constraint,omitempty"`
}

// jsonDefault is the DEFAULT partition as --json prints it.
type jsonDefault struct {
	Name   string `json:"name"`
	Rows   int64  `json:"rows"`
	Oldest string `json:"oldest,omitempty"`
	Newest string `json:"newest,omitempty"`
}

// jsonPart is a partition as --json prints it.
type jsonPart struct {
	Name        string `json:"name"`
	Default     bool   `json:"default,omitempty"`
	Lower       string `json:"lower,omitempty"`
	Upper       string `json:"upper,omitempty"`
	From        string `json:"from,omitempty"`
	To          string `json:"to,omitempty"`
	RowEstimate *int64 `json:"row_estimate"`
}

func jsonParts(parts []partition.Partition) []jsonPart {
	out := make([]jsonPart, 0, len(parts))
	for _, p := range parts {
		j := jsonPart{Name: p.Name, Default: p.Default, From: p.From, To: p.To}
		if !p.Lower.IsZero() {
			j.Lower = fmtTime(p.Lower)
		}
		if !p.Upper.IsZero() {
			j.Upper = fmtTime(p.Upper)
		}
		if p.RowEstimate >= 0 {
			n := p.RowEstimate
			j.RowEstimate = &n
		}
		out = append(out, j)
	}
	return out
}
