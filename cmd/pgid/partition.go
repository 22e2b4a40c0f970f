package main

import (
	"context"
	"fmt"
	"io"
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
		fmt.Fprintln(e.stdout, `Usage: pgid partition ensure|list --table T [flags]
  ensure  create the partitions of a table partitioned by RANGE (id), keep some
          ready ahead of now, and retire those older than the retention
  list    show each partition with its time range and row estimate
Run "pgid partition ensure -h" or "pgid partition list -h" for the flags;
docs/PARTITIONING.md explains the plan.`)
		return nil
	}
	return usagef("unknown subcommand %q: want ensure or list", args[0])
}

func cmdPartitionEnsure(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "partition")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: pgid partition ensure --table T --every W [flags]\nFlags (-x and --x are the same):")
		fs.PrintDefaults()
	}
	dbURL := fs.String("database-url", "", "the database (default $DATABASE_URL)")
	table := fs.String("table", "", "the table partitioned by RANGE (id), as SQL names it: events, app.events")
	every := fs.String("every", "day", "partition width: hour, day, week, month, year, or N of them (6h, 2w, 3months, 90s)")
	ahead := fs.Int("ahead", 2, "partitions to keep ready after the current one")
	retain := fs.String("retain", "", "retire partitions whose whole range is older than this (30d, 12months); empty keeps all")
	retire := fs.String("retire", "drop", "how to retire: drop, detach, detach-concurrently or detach-concurrently-drop")
	kind := fs.String("kind", "any", "the key's kind, checked against the column: any, ulid or objectid")
	at := fs.String("at", "", "the time the current partition holds (RFC 3339, a date, or -24h); default the server's now()")
	asJSON := fs.Bool("json", false, `print {"created", "detached", "dropped"}, each a list of partitions`)
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
	plan := partition.Plan{Parent: *table, Ahead: *ahead}
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
	conn, err := connectURL(ctx, e, "partition ensure", *dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	r, err := partition.Ensure(ctx, conn, plan)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, map[string]any{
			"created": jsonParts(r.Created), "detached": jsonParts(r.Detached), "dropped": jsonParts(r.Dropped),
		})
	}
	if r.Empty() {
		fmt.Fprintf(e.stdout, "%s: nothing to do\n", *table)
		return nil
	}
	for _, step := range []struct {
		what  string
		parts []partition.Partition
	}{{"created", r.Created}, {"detached", r.Detached}, {"dropped", r.Dropped}} {
		for _, p := range step.parts {
			fmt.Fprintf(e.stdout, "%-9s %s  %s\n", step.what, p.Name, timeRange(p))
		}
	}
	return nil
}

func cmdPartitionList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "partition")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: pgid partition list --table T [flags]\nFlags (-x and --x are the same):")
		fs.PrintDefaults()
	}
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
