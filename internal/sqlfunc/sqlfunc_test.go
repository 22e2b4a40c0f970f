package sqlfunc_test

import (
	"slices"
	"testing"

	"github.com/pgid/pgid/internal/sqlfunc"
)

func TestParse(t *testing.T) {
	src := []byte(`-- CREATE OR REPLACE FUNCTION pgid.not_this() in a comment line is skipped
CREATE OR REPLACE FUNCTION pgid.a(x integer,
                                  y text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN 'LANGUAGE plpgsql';

CREATE OR REPLACE FUNCTION pgid._b() RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp AS $$ BEGIN END $$;

CREATE OR REPLACE FUNCTION pgid.c(parent regclass) RETURNS void
LANGUAGE plpgsql
AS $$ BEGIN END $$;

CREATE OR REPLACE FUNCTION pgid.d() RETURNS integer
LANGUAGE sql STABLE RETURN 1;
`)
	got := sqlfunc.Parse(src)
	want := []sqlfunc.Func{{"a", "sql", "i"}, {"_b", "plpgsql", "v"}, {"c", "plpgsql", "v"}, {"d", "sql", "s"}}
	if !slices.Equal(got, want) {
		t.Errorf("Parse = %v, want %v", got, want)
	}
}
