package integration_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pgid.typeid_text and pgid.typeid_uuid quote a prefix in their errors cut
// to 64 bytes, as the Go parsers cut the input: a 1 MiB prefix makes an
// error of a few hundred bytes, not of a megabyte.
func TestTypeIDErrorQuotesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	const n = 1 << 20
	for _, q := range []string{
		"SELECT pgid.typeid_text(repeat('a', $1), gen_random_uuid())::text",
		"SELECT pgid.typeid_uuid('user_01h455vb4pex5vsknk084sn02q', repeat('a', $1))::text",
		"SELECT pgid.typeid_uuid(repeat('a', $1) || '_01h455vb4pex5vsknk084sn02q', 'user')::text",
	} {
		var out string
		err := conn.QueryRow(ctx, q, n).Scan(&out)
		if sqlState(err) != "22P02" {
			t.Errorf("%s: %v; want 22P02", q, err)
			continue
		}
		msg := err.Error()
		if len(msg) > 300 || !strings.Contains(msg, "has 1048576 bytes, want at most 63") || !strings.Contains(msg, `aaaa..."`) {
			t.Errorf("%s: a %d-byte message starting %.200q; want at most 300 bytes naming the length, the quote cut with ...", q, len(msg), msg)
		}
	}
}
