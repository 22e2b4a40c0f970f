package migrations

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// readOutside reads a schema pgid that no version table records (made
// outside the runner, by `pgid schema` through another migration tool):
// whether it exists, which domains and functions of this pgid it lacks
// (each function by name and number of arguments), and which functions it
// has that this pgid does not define.
func readOutside(ctx context.Context, c *pgx.Conn, versioned []step, fn step) (present bool, lacks, extra []string, err error) {
	if err := c.QueryRow(ctx, "SELECT pg_catalog.to_regnamespace('pgid') IS NOT NULL").Scan(&present); err != nil || !present {
		return false, nil, nil, err
	}
	// What readMissing finds when every step is recorded as this pgid's.
	all := state{records: map[string]record{FunctionsStep: {name: FunctionsStep, checksum: &fn.checksum}}}
	for _, v := range versioned {
		all.records[v.name] = record{name: v.name}
	}
	if err := all.readMissing(ctx, c, versioned, fn); err != nil {
		return true, nil, nil, err
	}
	var names []string
	var nargs []int32
	for _, m := range dropFunction.FindAllStringSubmatch(fn.down, -1) {
		n := 0
		if strings.TrimSpace(m[2]) != "" {
			n = strings.Count(m[2], ",") + 1
		}
		names, nargs = append(names, m[1]), append(nargs, int32(n))
	}
	rows, err := c.Query(ctx, `
		SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text FROM pg_catalog.pg_proc p
		WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
		  AND NOT EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.text[]), pg_catalog.unnest($2::pg_catalog.int4[])) f(name, nargs)
		                  WHERE p.proname OPERATOR(pg_catalog.=) f.name::pg_catalog.name AND p.pronargs OPERATOR(pg_catalog.=) f.nargs)
		ORDER BY 1`, names, nargs)
	if err != nil {
		return true, nil, nil, fmt.Errorf("compare schema pgid with this pgid's: %w", err)
	}
	extra, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return true, nil, nil, fmt.Errorf("compare schema pgid with this pgid's: %w", err)
	}
	if len(extra) == 0 {
		extra = nil
	}
	return true, slices.Clip(all.missing), extra, nil
}
