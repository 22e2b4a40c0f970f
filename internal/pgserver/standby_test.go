//go:build unix

package pgserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStartStandby: a standby of an embedded primary, copied with
// pg_basebackup where the binaries have it and over SQL otherwise (and
// over SQL on request), is in recovery, accepts reads, and shows a row
// committed on the primary; Close removes its directory and its slot.
func TestStartStandby(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bins := systemOrNPM(t)
	primary, err := StartEmbedded(ctx, EmbeddedOptions{Binaries: bins, Getenv: env(nil), RunAsUser: os.Getenv(EnvUser)})
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	pc, err := pgx.Connect(ctx, primary.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	if _, err := pc.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, note text)"); err != nil {
		t.Fatal(err)
	}

	_, hasBasebackup := os.Stat(filepath.Join(bins, "bin", "pg_basebackup"))
	for name, sql := range map[string]bool{"default": false, "sql": true} {
		t.Run(name, func(t *testing.T) {
			began := time.Now()
			s, err := StartStandby(ctx, primary, EmbeddedOptions{Settings: []string{"hot_standby_feedback=on"}, sqlBackup: sql})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, up in %v", s.Description, time.Since(began).Round(time.Millisecond))
			if wantBB := !sql && hasBasebackup == nil; wantBB != (strings.Contains(s.Description, "copied with pg_basebackup")) {
				t.Errorf("description %q: want pg_basebackup %v", s.Description, wantBB)
			}
			sc, err := pgx.Connect(ctx, s.DSN)
			if err != nil {
				s.Close()
				t.Fatal(err)
			}
			var recovery bool
			var feedback string
			if err := sc.QueryRow(ctx, "SELECT pg_is_in_recovery(), current_setting('hot_standby_feedback')").Scan(&recovery, &feedback); err != nil {
				t.Fatal(err)
			}
			if !recovery || feedback != "on" {
				t.Errorf("pg_is_in_recovery() = %v, hot_standby_feedback = %s; want true, on", recovery, feedback)
			}
			var id int
			if err := pc.QueryRow(ctx, "INSERT INTO t SELECT coalesce(max(id), 0) + 1, $1 FROM t RETURNING id", name).Scan(&id); err != nil {
				t.Fatal(err)
			}
			var lsn string
			if err := pc.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				var note string
				err := sc.QueryRow(ctx, "SELECT note FROM t WHERE id = $1", id).Scan(&note)
				if err == nil {
					if note != name {
						t.Errorf("standby row %d: note %q, want %q", id, note, name)
					}
					break
				}
				if !errors.Is(err, pgx.ErrNoRows) || time.Now().After(deadline) {
					t.Fatalf("row %d (primary at %s) not on the standby: %v", id, lsn, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if _, err := sc.Exec(ctx, "INSERT INTO t VALUES (-1, 'x')"); err == nil {
				t.Error("the standby took an INSERT")
			}
			sc.Close(ctx)
			var slots int
			if err := pc.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE active").Scan(&slots); err != nil || slots != 1 {
				t.Errorf("active slots on the primary: %d, %v; want 1", slots, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(s.DataDir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("data directory %s after Close: %v", s.DataDir, err)
			}
			if err := pc.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots").Scan(&slots); err != nil || slots != 0 {
				t.Errorf("slots on the primary after Close: %d, %v; want 0", slots, err)
			}
		})
	}
	if _, err := StartStandby(ctx, &Server{DSN: primary.DSN}, EmbeddedOptions{}); !errors.Is(err, ErrNotEmbedded) {
		t.Errorf("StartStandby of a server not started here: %v, want ErrNotEmbedded", err)
	}
}

// systemOrNPM is $PGID_POSTGRES_BINARIES, else the installed PostgreSQL
// (Debian's 15: with pg_basebackup), else .ci/pg-binaries 18.
func systemOrNPM(t *testing.T) string {
	if d := os.Getenv(EnvBinaries); d != "" {
		return d
	}
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/pg_basebackup"); err == nil {
		return "/usr/lib/postgresql/15"
	}
	return binaries(t)
}
