package integration_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// TestSliceDatabaseSQL: ulidtype.Slice and objectidtype.Slice (and their
// Null twins) as database/sql arguments and scan targets, with no
// SQLScanner or pq.Array in sight: pgx stdlib in every QueryExecMode, with
// and without AfterConnect, and lib/pq with text and binary parameters;
// plain and domain columns; NULL elements and NULL arrays.
func TestSliceDatabaseSQL(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := setup.Exec(context.Background(), `
		CREATE TABLE arr_plain (k int PRIMARY KEY, u uuid, o bytea, us uuid[], os bytea[]);
		CREATE TABLE arr_domain (k int PRIMARY KEY, u pgid.ulid, o pgid.objectid, us pgid.ulid[], os pgid.objectid[])`); err != nil {
		t.Fatal(err)
	}
	dbs := map[string]*sql.DB{
		"lib/pq":                   openLibPQ(t, dsn),
		"lib/pq/binary_parameters": openLibPQ(t, withParam(dsn, "binary_parameters", "yes")),
	}
	for _, mode := range allModes {
		for _, hook := range []bool{false, true} {
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			name := "stdlib/" + modeName(mode)
			var opts []stdlib.OptionOpenDB
			if hook {
				name += "/AfterConnect"
				opts = append(opts, stdlib.OptionAfterConnect(pgidpgx.AfterConnect))
			}
			db := stdlib.OpenDB(*cfg, opts...)
			t.Cleanup(func() { db.Close() })
			dbs[name] = db
		}
	}
	k := 0
	for name, db := range dbs {
		for _, table := range []string{"arr_plain", "arr_domain"} {
			t.Run(name+"/"+table, func(t *testing.T) {
				ctx := context.Background()
				us := ulidtype.Slice{ulidtype.New(), ulidtype.New(), ulidtype.New()}
				os := objectidtype.Slice{objectidtype.New(), specialObjectIDs[2], specialObjectIDs[6]}
				k0 := k
				for i := range us {
					k++
					if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3::bytea)", k, us[i], os[i]); err != nil {
						t.Fatal(err)
					}
				}
				// ($3::bytea: lib/pq sends a []byte raw to a bytea domain, TestLibPQByteaDomain.)
				// Scan array_agg into Slices.
				var gu ulidtype.Slice
				var gol objectidtype.Slice
				if err := db.QueryRowContext(ctx, "SELECT array_agg(u ORDER BY k), array_agg(o ORDER BY k) FROM "+table+" WHERE k > $1", k0).Scan(&gu, &gol); err != nil || !slices.Equal(gu, us) || !slices.Equal(gol, os) {
					t.Fatalf("array_agg: %v %v, %v", gu, gol, err)
				}
				// Bind Slices to = ANY($1).
				var n int
				if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE u = ANY($1) AND o = ANY($2)", us[1:], os[1:]).Scan(&n); err != nil || n != 2 {
					t.Fatalf("= ANY: %d, %v", n, err)
				}
				// Store arrays with NULL elements, read them back.
				k++
				nus := ulidtype.NullSlice{{ULID: us[0], Valid: true}, {}, {ULID: us[2], Valid: true}}
				nos := objectidtype.NullSlice{{}, {ObjectID: os[1], Valid: true}}
				if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (k, us, os) VALUES ($1, $2, $3)", k, nus, nos); err != nil {
					t.Fatal(err)
				}
				var gnu ulidtype.NullSlice
				var gno objectidtype.NullSlice
				if err := db.QueryRowContext(ctx, "SELECT us, os FROM "+table+" WHERE k = $1", k).Scan(&gnu, &gno); err != nil || !slices.Equal(gnu, nus) || !slices.Equal(gno, nos) {
					t.Fatalf("NULL elements: %v %v, %v", gnu, gno, err)
				}
				// A NULL element into a Slice is an ErrNull; a NULL array a nil Slice.
				if err := db.QueryRowContext(ctx, "SELECT us FROM "+table+" WHERE k = $1", k).Scan(&gu); err == nil {
					t.Fatalf("NULL element into Slice: %v", gu)
				}
				k++
				if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (k, us, os) VALUES ($1, $2, $3)", k, ulidtype.Slice(nil), objectidtype.Slice{}); err != nil {
					t.Fatal(err)
				}
				gol = objectidtype.Slice{os[0]}
				if err := db.QueryRowContext(ctx, "SELECT us, os FROM "+table+" WHERE k = $1", k).Scan(&gu, &gol); err != nil || gu != nil || gol == nil || len(gol) != 0 {
					t.Fatalf("NULL and empty arrays: %#v %#v, %v", gu, gol, err)
				}
			})
		}
	}
}

// TestSlicePgx: the same Slice types straight through pgx, in every
// QueryExecMode, with and without AfterConnect: pgx binds them and hands
// array results over in binary, which Scan reads too.
func TestSlicePgx(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	for _, mode := range allModes {
		for _, hook := range []bool{false, true} {
			conn := connect(t, dsn, mode)
			ctx := context.Background()
			if hook {
				if err := pgidpgx.AfterConnect(ctx, conn); err != nil {
					t.Fatal(err)
				}
			}
			us := ulidtype.Slice{ulidtype.New(), ulidtype.New()}
			os := objectidtype.Slice{objectidtype.New(), objectidtype.New()}
			for _, typ := range []string{"uuid[]", "pgid.ulid[]"} {
				var got ulidtype.Slice
				err := conn.QueryRow(ctx, "SELECT $1::"+typ, us).Scan(&got)
				if err != nil || !slices.Equal(got, us) {
					t.Errorf("%v %v %s: %v %v", mode, hook, typ, got, err)
				}
			}
			for _, typ := range []string{"bytea[]", "pgid.objectid[]"} {
				var got objectidtype.Slice
				err := conn.QueryRow(ctx, "SELECT $1::"+typ, os).Scan(&got)
				if err != nil || !slices.Equal(got, os) {
					t.Errorf("%v %v %s: %v %v", mode, hook, typ, got, err)
				}
				var gn objectidtype.NullSlice
				err = conn.QueryRow(ctx, "SELECT $1::"+typ, objectidtype.NullSlice{{}, {ObjectID: os[0], Valid: true}}).Scan(&gn)
				if err != nil || len(gn) != 2 || gn[0].Valid {
					t.Errorf("null %v %v %s: %v %v", mode, hook, typ, gn, err)
				}
			}
		}
	}
}
