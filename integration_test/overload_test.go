package integration_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// overloadTypes lists, for a parameter type of a pgid function, argument
// types that an uncast call site may pass: an overload taking one of them
// is a better match than pgid's function for such a call.
var overloadTypes = map[string][]string{
	"text":                     {"name", "character varying"},
	"name":                     {"text"},
	"integer":                  {"smallint"},
	"bigint":                   {"integer", "smallint"},
	"timestamp with time zone": {"timestamp without time zone", "date"},
	"regclass":                 {"oid", "text"},
	"oid":                      {"regclass", "integer", "bigint"},
	"jsonb":                    {"json"},
	"text[]":                   {"name[]", "character varying[]"},
	"regclass[]":               {"oid[]"},
}

// No function of pgid runs an overload of one of pgid's functions that
// another role put in schema pgid: every call inside pgid's SQL names the
// exact argument types. A role given CREATE on schema pgid (as earlier
// editions left it under the owner's default privileges) plants, for every
// function of pgid, overloads whose parameter types match uncast arguments
// better (name for text, smallint for integer, oid for regclass, ...),
// each raising a WARNING and then calling pgid's function; then a superuser
// calls every pgid function (checkAllFunctions). No overload may run from
// inside a pgid function. (Overloads the test's own top-level SQL reaches
// are pgid's callers' business and only logged.)
func TestInternalCallsNameTheirTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	var mu sync.Mutex
	var nested, direct []string
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if !strings.HasPrefix(n.Message, "pgid-overload ") {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		// The context: the note, the overload, then whoever called it.
		lines := strings.Split(strings.TrimSpace(n.Where), "\n")
		if len(lines) > 2 {
			caller := lines[2]
			for _, l := range lines[2:] {
				if strings.HasPrefix(l, "PL/pgSQL function") {
					caller = l
					break
				}
			}
			nested = append(nested, strings.TrimPrefix(n.Message, "pgid-overload ")+" called from "+caller)
		} else {
			direct = append(direct, strings.TrimPrefix(n.Message, "pgid-overload "))
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })

	planted, fns := plantOverloads(t, conn, nil, overloadTypes)
	t.Logf("%d overloads of %d pgid functions planted in schema pgid", planted, fns)

	checkAllFunctions(t, conn, "the default", map[string]bool{})
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(nested)
	nested = slices.Compact(nested)
	for _, n := range nested {
		t.Errorf("a pgid function ran another role's overload: %s", n)
	}
	slices.Sort(direct)
	t.Logf("overloads the test's own SQL reached: %d (%s)", len(direct), strings.Join(slices.Compact(direct), "; "))
}

// plantOverloads makes a role with CREATE on schema pgid (dropped when t
// ends) and plants, as that role, overloads of the functions of pgid named
// in names (all if nil) with parameters: for each parameter, one per
// better-matching type that types lists for its type, pairs of them, and
// one with every parameter replaced. Each raises a WARNING "pgid-overload
// <signature> ran as <role>", then calls pgid's function. It returns how
// many overloads it planted, of how many functions.
func plantOverloads(t *testing.T, conn *pgx.Conn, names []string, types map[string][]string) (planted, functions int) {
	t.Helper()
	ctx := context.Background()
	attacker := "pgid_overload_" + randomHex(4)
	if _, err := conn.Exec(ctx, "CREATE ROLE "+attacker); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+attacker); err != nil {
			t.Errorf("drop role %s: %v", attacker, err)
		}
	})
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP OWNED BY "+attacker) })
	if _, err := conn.Exec(ctx, fmt.Sprintf(`GRANT CREATE ON SCHEMA pgid TO %[1]s;
		CREATE SCHEMA mallory AUTHORIZATION %[1]s; GRANT USAGE ON SCHEMA mallory TO PUBLIC;
		SET ROLE %[1]s;
		CREATE FUNCTION mallory.note(what pg_catalog.text) RETURNS void LANGUAGE plpgsql AS
		  $$BEGIN RAISE WARNING 'pgid-overload %% ran as %%', what, current_user; END$$;
		RESET ROLE`, attacker)); err != nil {
		t.Fatal(err)
	}

	// Every function of pgid with parameters: its IN parameter types, its
	// OUT parameters, its result.
	rows, err := conn.Query(ctx, `
		SELECT p.proname::text, p.oid::regprocedure::text,
		       ARRAY(SELECT format_type(a, NULL) FROM unnest(p.proargtypes::oid[]) a),
		       pg_get_function_arguments(p.oid), pg_get_function_result(p.oid)
		FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace AND p.pronargs > 0
		  AND (p.proname = ANY($1) OR $1 IS NULL) ORDER BY 2`, names)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		name, sig, args, result string
		in                      []string
	}
	fns, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (fn, error) {
		var f fn
		err := r.Scan(&f.name, &f.sig, &f.in, &f.args, &f.result)
		return f, err
	})
	if err != nil {
		t.Fatal(err)
	}
	existing := map[string]bool{}
	for _, f := range fns {
		existing[f.name+"("+strings.Join(f.in, ",")+")"] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SET ROLE %s;\n", attacker)
	for i, f := range fns {
		var outs []string
		for _, a := range strings.Split(f.args, ", ") {
			if strings.HasPrefix(a, "OUT ") {
				outs = append(outs, a)
			}
		}
		// One overload per parameter and better-matching type, and one
		// with every parameter replaced by its first such type.
		var variants [][]string
		all := slices.Clone(f.in)
		for j, typ := range f.in {
			for k, alt := range types[typ] {
				v := slices.Clone(f.in)
				v[j] = alt
				variants = append(variants, v)
				if k == 0 {
					all[j] = alt
				}
			}
		}
		// Pairs of parameters replaced by their first such types: the
		// guard's (TG_TABLE_SCHEMA, TG_TABLE_NAME), both of type name.
		for j := range f.in {
			for k := j + 1; k < len(f.in); k++ {
				if len(types[f.in[j]]) > 0 && len(types[f.in[k]]) > 0 {
					v := slices.Clone(f.in)
					v[j], v[k] = types[f.in[j]][0], types[f.in[k]][0]
					variants = append(variants, v)
				}
			}
		}
		variants = append(variants, all)
		for k, v := range variants {
			key := f.name + "(" + strings.Join(v, ",") + ")"
			if existing[key] {
				continue
			}
			existing[key] = true
			var params, call []string
			for j, typ := range v {
				params = append(params, fmt.Sprintf("a%d %s", j, typ))
				call = append(call, fmt.Sprintf("$%d::%s", j+1, f.in[j]))
			}
			params = append(params, outs...)
			fmt.Fprintf(&b, "CREATE FUNCTION pgid.%s(%s) RETURNS %s LANGUAGE sql AS $o%d_%d$\n"+
				"SELECT mallory.note(%s); SELECT * FROM pgid.%s(%s)\n$o%d_%d$;\n",
				f.name, strings.Join(params, ", "), f.result, i, k,
				quoteLiteral(key), f.name, strings.Join(call, ", "), i, k)
			planted++
		}
	}
	b.WriteString("RESET ROLE;\n")
	if _, err := conn.Exec(ctx, b.String()); err != nil {
		t.Fatalf("planting the overloads: %v", err)
	}
	return planted, len(fns)
}

// quoteLiteral returns s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
