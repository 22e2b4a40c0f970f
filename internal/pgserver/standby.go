//go:build unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// embeddedInfo is what [StartStandby] needs to know of a server
// [StartEmbedded] (or StartStandby) started.
type embeddedInfo struct {
	bin      string      // the bin directory it runs from
	cred     *credential // the user it runs as, nil when not root
	password string      // postgres's password
	port     int
}

// StartStandby starts a streaming hot standby of primary, a server
// [StartEmbedded] started: from the same binaries, as the same user, in a
// new temporary directory, on a free port of 127.0.0.1, with the same
// password (its DSN differs from the primary's only in the port).
// [Server.Close] stops it, removes its directory and drops its replication
// slot on the primary (close the standby before the primary).
//
// The copy is pg_basebackup -R -X stream -C -S (a physical replication slot
// of its own, so the primary keeps the WAL the standby has not received)
// when the bin directory has pg_basebackup; otherwise (the npm binaries
// hold only initdb, pg_ctl and postgres) the same done over SQL: the slot,
// pg_backup_start, a copy of the primary's data directory, pg_backup_stop,
// its backup_label, standby.signal, primary_conninfo and primary_slot_name.
// The primary needs nothing set: wal_level replica, max_wal_senders 10 and
// initdb's pg_hba.conf replication lines for 127.0.0.1 are PostgreSQL's
// defaults, and postgres has the REPLICATION attribute.
//
// o.Settings are the standby's extra settings (e.g.
// "recovery_min_apply_delay=1s", "hot_standby_feedback=on"); o.Logf
// reports progress; the binaries, user and sources of o are not used: the
// primary's are.
func StartStandby(ctx context.Context, primary *Server, o EmbeddedOptions) (*Server, error) {
	var info *embeddedInfo
	if primary != nil {
		info, _ = primary.emb.(*embeddedInfo)
	}
	if info == nil || primary.close == nil {
		return nil, fmt.Errorf("%w: StartStandby needs a running primary that StartEmbedded started", ErrNotEmbedded)
	}
	if err := o.checkSettings(); err != nil {
		return nil, err
	}
	began := time.Now()
	cred := info.cred
	work, err := workDir(cred, "pgid-standby-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(work)
		return nil, interrupted(ctx, fmt.Errorf("embedded PostgreSQL standby: %w", err))
	}
	if cred != nil {
		if err := os.Chmod(work, 0o711); err != nil {
			return fail(err)
		}
	}
	runDir := filepath.Join(work, "run")
	dataDir := filepath.Join(runDir, "data")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		return fail(err)
	}
	if cred != nil {
		if err := os.Chown(runDir, cred.uid, cred.gid); err != nil {
			return fail(err)
		}
	}
	suffix, err := randomHex(6)
	if err != nil {
		return fail(err)
	}
	slot := "pgid_standby_" + suffix
	how := "pg_basebackup"
	if _, err := os.Stat(filepath.Join(info.bin, "pg_basebackup")); err == nil && !o.sqlBackup {
		err = baseBackup(ctx, &o, info, dataDir, slot)
	} else {
		how = "pg_backup_start and a copy"
		err = sqlBackup(ctx, primary, info, dataDir, slot)
	}
	if err != nil {
		dropSlot(primary.DSN, slot)
		return fail(err)
	}
	if err := copyConf(filepath.Dir(filepath.Dir(primary.DataDir)), work); err != nil {
		dropSlot(primary.DSN, slot)
		return fail(err)
	}
	s, err := serve(ctx, &o, cred, info.bin, work, runDir, dataDir, info.password, began)
	if err != nil {
		dropSlot(primary.DSN, slot)
		return fail(err)
	}
	stop := s.close
	s.close = func() error { return errors.Join(stop(), dropSlot(primary.DSN, slot)) }
	s.Description = fmt.Sprintf("embedded PostgreSQL hot standby on %s of the primary on port %d (copied with %s; slot %s; data in %s, removed at the end)",
		s.addr, info.port, how, slot, s.DataDir)
	return s.Server, nil
}

// baseBackup copies the primary into dataDir with pg_basebackup, as the
// server's user, the password in its environment (which only that user and
// root may read).
func baseBackup(ctx context.Context, o *EmbeddedOptions, info *embeddedInfo, dataDir, slot string) error {
	var out strings.Builder
	cmd := command(ctx, filepath.Join(info.bin, "pg_basebackup"), "-D", dataDir,
		"-h", "127.0.0.1", "-p", fmt.Sprint(info.port), "-U", "postgres", "-w",
		"-R", "-X", "stream", "-C", "-S", slot, "-c", "fast", "--no-sync")
	cmd.Env = append(cmd.Env, "PGPASSWORD="+info.password, "PGAPPNAME="+slot)
	cmd.Stdout, cmd.Stderr = &out, &out
	done, err := startAs(o, info.cred, "pg_basebackup", cmd)
	if err != nil {
		return fmt.Errorf("pg_basebackup: %w", err)
	}
	err = cmd.Wait()
	done()
	if err != nil {
		return fmt.Errorf("pg_basebackup: %w\n%s", err, tail([]byte(out.String())))
	}
	// -R writes primary_conninfo from the connection's settings, password
	// included; the standby's own name tells the primary's views apart.
	return appendFile(filepath.Join(dataDir, "postgresql.auto.conf"), "primary_slot_name = '"+slot+"'\n", info.cred)
}

// sqlBackup is pg_basebackup -R -C -S over SQL, for binaries without it:
// a slot, pg_backup_start, a copy of the data directory (as root, chowned
// to the server's user), pg_backup_stop's backup_label, standby.signal
// and the connection settings.
func sqlBackup(ctx context.Context, primary *Server, info *embeddedInfo, dataDir, slot string) error {
	conn, err := pgx.Connect(ctx, primary.DSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_create_physical_replication_slot($1, true)", slot); err != nil {
		return fmt.Errorf("create the replication slot: %w", err)
	}
	start, stop := "SELECT pg_backup_start($1, true)", "SELECT labelfile, spcmapfile FROM pg_backup_stop()"
	if version < 150000 {
		start, stop = "SELECT pg_start_backup($1, true, false)", "SELECT labelfile, spcmapfile FROM pg_stop_backup(false)"
	}
	if _, err := conn.Exec(ctx, start, slot); err != nil {
		return fmt.Errorf("start the backup: %w", err)
	}
	copyErr := copyData(primary.DataDir, dataDir, info.cred)
	var label, spcmap *string
	if err := conn.QueryRow(ctx, stop).Scan(&label, &spcmap); err != nil {
		return errors.Join(copyErr, fmt.Errorf("stop the backup: %w", err))
	}
	if copyErr != nil {
		return fmt.Errorf("copy %s: %w", primary.DataDir, copyErr)
	}
	if label == nil {
		return errors.New("pg_backup_stop returned no backup_label")
	}
	conf := fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres password=%s application_name=%s'\nprimary_slot_name = '%s'\n",
		info.port, info.password, slot, slot)
	return errors.Join(
		writePrivate(filepath.Join(dataDir, "backup_label"), []byte(*label), info.cred),
		writePrivate(filepath.Join(dataDir, "standby.signal"), nil, info.cred),
		appendFile(filepath.Join(dataDir, "postgresql.auto.conf"), conf, info.cred))
}

// skipped are what a base backup leaves out of a data directory: the
// running server's files, and directories whose contents are made again
// (pg_wal comes over streaming replication).
var skipped = map[string]bool{
	"postmaster.pid": true, "postmaster.opts": true, "backup_label": true, "tablespace_map": true,
	"current_logfiles": true, "standby.signal": true, "recovery.signal": true,
}

var emptied = map[string]bool{
	"pg_wal": true, "pg_replslot": true, "pg_stat_tmp": true, "pg_dynshmem": true, "pg_notify": true,
	"pg_serial": true, "pg_snapshots": true, "pg_subtrans": true,
}

// copyData copies the data directory src to dst (new), owned by cred when
// not nil, leaving out what a base backup leaves out. Files that vanish
// while it copies are skipped, as pg_basebackup does.
func copyData(src, dst string, cred *credential) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		parent, name := filepath.Split(rel)
		if skipped[rel] || name == "pg_internal.init" || emptied[filepath.Clean(parent)] {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, fi.Mode().Perm()); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if err := copyFile(p, target, fi.Mode().Perm()); errors.Is(err, fs.ErrNotExist) {
				return nil
			} else if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is neither a file nor a directory", p)
		}
		if cred != nil {
			return os.Lchown(target, cred.uid, cred.gid)
		}
		return nil
	})
	if err != nil {
		return err
	}
	archive := filepath.Join(dst, "pg_wal", "archive_status")
	if err := os.Mkdir(archive, 0o700); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(archive, cred.uid, cred.gid)
	}
	return nil
}

// copyFile copies the file src to the new file dst.
func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// appendFile appends text to the file p, which cred owns (or this process).
func appendFile(p, text string, cred *credential) error {
	return writeOwned(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, []byte(text), cred)
}

// dropSlot drops the replication slot on the primary at dsn, if the
// primary still runs and the slot exists.
func dropSlot(dsn, slot string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil // the primary is gone, and its slots with it
	}
	defer conn.Close(ctx)
	// The walsender may take a moment to exit after the standby stopped.
	for {
		_, err = conn.Exec(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1", slot)
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("drop the replication slot %s: %w", slot, err)
	}
	return nil
}

// copyConf makes work/conf with the configuration files of the server in
// from (a primary's work directory, whose conf only this process may
// write).
func copyConf(from, work string) error {
	conf, err := makeConfDir(work)
	if err != nil {
		return err
	}
	for _, name := range []string{"postgresql.conf", "pg_hba.conf", "pg_ident.conf"} {
		b, err := os.ReadFile(filepath.Join(from, confDir, name))
		if err != nil {
			return err
		}
		if err := writeShared(filepath.Join(conf, name), b); err != nil {
			return err
		}
	}
	return nil
}
