package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

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
	dbURL := fs.String("database-url", "", "the database (default $DATABASE_URL)")
	table := fs.String("table", "", "the table partitioned by RANGE (id), as SQL names it: events, app.events")
	every := fs.String("every", "day", "partition width: hour, day, week, month, year, or N of them (6h, 2w, 3months, 90s)")
	ahead := fs.Int("ahead", 2, "partitions to keep ready after the current one")
	retain := fs.String("retain", "", "retire partitions whose whole range is older than this (30d, 12months); empty keeps all")
	retire := fs.String("retire", "drop", "how to retire: drop, detach, detach-concurrently or detach-concurrently-drop")
	kind := fs.String("kind", "any", "the key's kind, checked against the column: any, ulid or objectid")
	at := fs.String("at", "", "the time the current partition holds (RFC 3339, a date, or -24h); default the server's now()")
	retainAt := fs.String("retain-at", "", "the time retention counts back from, if not --at (RFC 3339, a date, or -24h)")
	dryRun := fs.Bool("dry-run", false, "change nothing; print what would be created, detached, dropped and kept")
	cascade := fs.Bool("cascade-into-retained", false, "let foreign keys (ON DELETE CASCADE, SET NULL, SET DEFAULT) delete or change\n"+
		"rows of the table younger than the cut when an expired partition goes; without it such a partition is kept")
	asJSON := fs.Bool("json", false, `print {"created", "detached", "dropped", "kept", "fk_actions", "default", "dry_run"}`)
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *table == "" {
		return usagef("--table is required")
	}
	plan := partition.Plan{Parent: *table, Ahead: *ahead, DryRun: *dryRun, CascadeIntoRetained: *cascade}
	if plan.Every, err = partition.ParseSpan(*every); err != nil {
		return usageError{fmt.Errorf("--every: %w", err)}
	}
	if *retain != "" {
		if plan.Retain, err = partition.ParseSpan(*retain); err != nil {
			return usageError{fmt.Errorf("--retain: %w", err)}
		}
	}
	if plan.Retire, err = partition.ParseRetire(*retire); err != nil {
		return usageError{fmt.Errorf("--retire: %w", err)}
	}
	if plan.Kind, err = partition.ParseKind(*kind); err != nil {
		return usageError{fmt.Errorf("--kind: %w", err)}
	}
	if *at != "" {
		if plan.Now, err = parseWhen(*at, time.Now()); err != nil {
			return usageError{fmt.Errorf("--at: %w", err)}
		}
	}
	if *retainAt != "" {
		if plan.RetainAt, err = parseWhen(*retainAt, time.Now()); err != nil {
			return usageError{fmt.Errorf("--retain-at: %w", err)}
		}
	}
	conn, err := connectURL(ctx, e, "partition ensure", *dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	r, err := partition.Ensure(ctx, conn, plan)
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
		if werr := writeJSON(e.stdout, map[string]any{
			"created": jsonParts(r.Created), "detached": jsonParts(r.Detached), "dropped": jsonParts(r.Dropped),
			"kept": kept, "fk_actions": append([]partition.FKAction{}, r.FKActions...), "default": dflt, "dry_run": r.DryRun,
		}); werr != nil {
			return werr
		}
		return err
	}
	prefix := ""
	if r.DryRun {
		prefix = "would be "
	}
	if r.Empty() {
		fmt.Fprintf(e.stdout, "%s: nothing to do\n", *table)
		return nil
	}
	// Each retired or kept partition is followed by what its foreign keys
	// do (or would do), once.
	fks := map[string][]partition.FKAction{}
	for _, a := range r.FKActions {
		fks[a.Partition] = append(fks[a.Partition], a)
	}
	printFKs := func(name string) {
		for _, a := range fks[name] {
			fmt.Fprintf(e.stdout, "%9s foreign key: %s\n", "", a)
		}
		delete(fks, name)
	}
	for _, step := range []struct {
		what  string
		parts []partition.Partition
	}{{"created", r.Created}, {"detached", r.Detached}, {"dropped", r.Dropped}} {
		for _, p := range step.parts {
			fmt.Fprintf(e.stdout, "%-9s %s  %s\n", prefix+step.what, p.Name, timeRange(p))
			printFKs(p.Name)
		}
	}
	for _, k := range r.Kept {
		fmt.Fprintf(e.stdout, "%-9s %s  %s  %s\n", prefix+"kept", k.Name, timeRange(k.Partition), k.Reason)
		printFKs(k.Name)
	}
	if r.Default.Rows > 0 {
		fmt.Fprintf(e.stdout, "%-9s %s  %d rows made from %s to %s\n", "default", r.Default.Name, r.Default.Rows,
			fmtTime(r.Default.Oldest), fmtTime(r.Default.Newest))
	}
	return err
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

func cmdPartitionList(ctx context.Context, e *env, args []string) error {
	fs := partitionFlags(e, "list --table T [flags]")
	dbURL := fs.String("database-url", "", "the database (default $DATABASE_URL)")
	table := fs.String("table", "", "the partitioned table, as SQL names it")
	asJSON := fs.Bool("json", false, "print a list of partitions")
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *table == "" {
		return usagef("--table is required")
	}
	conn, err := connectURL(ctx, e, "partition list", *dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	parts, err := partition.List(ctx, conn, *table)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, jsonParts(parts))
	}
	printPartitions(e.stdout, parts)
	return nil
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
