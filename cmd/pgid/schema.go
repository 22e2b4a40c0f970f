package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/pgid/pgid/migrations"
)

// ---- schema

// schemaSQL is pgid's schema as one SQL text (migrations.Schema) under a
// header that says what it is for.
func schemaSQL() ([]byte, error) {
	sql, err := migrations.Schema()
	if err != nil {
		return nil, err
	}
	const header = "-- pgid's PostgreSQL schema (schema pgid: domains pgid.ulid and pgid.objectid, their\n" +
		"-- functions), written by `pgid schema` for sqlc's `schema:` list or another migration tool.\n" +
		"-- Every statement is idempotent; apply it as ONE transaction (it sets search_path with SET\n" +
		"-- LOCAL). Like `pgid migrate`, it fails (SQLSTATE 42501, naming them) while anything in\n" +
		"-- schema pgid, or the schema, is owned by a role other than the one applying it, the database\n" +
		"-- owner or a superuser: it checks first and again before the end. pgid's own version table is\n" +
		"-- not written: use either this file or `pgid migrate` (migrations.Up), not both. Regenerate\n" +
		"-- when pgid is upgraded; `pgid schema --check FILE` fails when FILE is not current.\n"
	return []byte(header + sql), nil
}

func cmdSchema(_ context.Context, e *env, args []string) error {
	fset := newFlags(e, "schema")
	check := fset.String("check", "", "compare FILE with the schema instead of printing it; exit 1 when it differs")
	pos, err := parse(e, fset, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q (pgid schema > FILE writes the schema)", pos[0])
	}
	sql, err := schemaSQL()
	if err != nil {
		return err
	}
	if *check == "" {
		_, err = e.stdout.Write(sql)
		return err
	}
	have, err := os.ReadFile(*check)
	if err != nil {
		return err
	}
	if !bytes.Equal(have, sql) {
		return fmt.Errorf("%s is not this pgid's schema: regenerate it with pgid schema > %s", *check, *check)
	}
	fmt.Fprintf(e.stdout, "%s is current\n", *check)
	return nil
}
