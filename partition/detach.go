package partition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A concurrent detach is two transactions on the server and a DROP TABLE
// after it, and the client may give up at any point while the server goes
// on (pgx closes the connection when a context ends; the server finishes
// the statement it is in). So before detaching, pgid records its intent on
// the partition itself, as its comment: the marker below. A comment is
// kept by the table through the detach, and writing one needs the table's
// ownership, as dropping it does. The next Ensure of the parent finds the
// marked tables (finishDetaches) and finishes what was started: DETACH …
// FINALIZE for a partition left "pending detach", DROP TABLE (or, when the
// table is to be kept, its own comment back) for a detached one.
//
// A marked table that is no longer a partition is dropped only if it is
// the very table the marker was written for (its OID and name), owned by
// the parent's owner or a role with its privileges, and carries the CHECK
// constraint with the partition's bounds that DETACH … CONCURRENTLY adds.
// A role that can forge all of that can drop the table itself; other
// marked tables are left alone, and those of the parent's owner reported in
// Report.Kept.

// markerHead begins the comment pgid writes on a partition before
// detaching it concurrently; the marker's JSON follows on the next line.
const markerHead = "pgid: detaching concurrently"

// detachMarker is what the marker records.
type detachMarker struct {
	Parent    string     `json:"parent"`     // the parent, as regclass printed it
	ParentOID uint32     `json:"parent_oid"` // and its OID
	Table     string     `json:"table"`      // the partition, schema-qualified
	TableOID  uint32     `json:"table_oid"`  // and its OID
	Bound     string     `json:"bound"`      // its bounds, pg_get_expr(relpartbound)
	Lower     *time.Time `json:"lower"`      // the times they stand for
	Upper     *time.Time `json:"upper"`
	Drop      bool       `json:"drop"`     // DetachConcurrentlyThenDrop
	Previous  *string    `json:"previous"` // the comment it had, given back when kept
	Started   time.Time  `json:"started"`
}

// text is the comment for m: a sentence for whoever reads it, then the JSON.
func (m detachMarker) text() (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	then := "keeping the table"
	if m.Drop {
		then = "then dropping it"
	}
	return fmt.Sprintf("%s from %s, %s; the next partition.Ensure of %s finishes it.\n%s", markerHead, m.Parent, then, m.Parent, b), nil
}

// parseMarker reads a comment written by text.
func parseMarker(comment string) (detachMarker, bool) {
	var m detachMarker
	head, body, ok := strings.Cut(comment, "\n")
	if !ok || !strings.HasPrefix(head, markerHead) || json.Unmarshal([]byte(body), &m) != nil || m.ParentOID == 0 || m.TableOID == 0 {
		return detachMarker{}, false
	}
	return m, true
}

// setComment sets the comment of the table with OID oid (nil: none).
func setComment(ctx context.Context, conn *pgx.Conn, oid uint32, comment *string) error {
	var stmt string
	err := conn.QueryRow(ctx, "SELECT pg_catalog.format('COMMENT ON TABLE %s IS %L', $1::pg_catalog.oid::pg_catalog.regclass, $2::pg_catalog.text)",
		oid, comment).Scan(&stmt)
	if err == nil {
		_, err = conn.Exec(ctx, stmt)
	}
	return err
}

// keptBy records in rep that part was kept because of err, if the server
// refused (it returns nil then); other errors are returned.
func keptBy(rep *Report, part Partition, what string, err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return wrap(what+" "+part.Name, err)
	}
	rep.Kept = append(rep.Kept, Kept{Partition: part, Reason: pg.Message, Detail: pg.Detail, Hint: pg.Hint, Constraint: pg.ConstraintName})
	return nil
}

// detachConcurrently detaches part with DETACH PARTITION … CONCURRENTLY (or
// FINALIZE, if an earlier one was interrupted), then drops it for
// DetachConcurrentlyThenDrop; the marker on the table says so meanwhile. A
// refusal by the server goes to rep.Kept.
func detachConcurrently(ctx context.Context, conn *pgx.Conn, parent string, part Partition, r Retire, rep *Report) error {
	m := detachMarker{Parent: parent, Table: part.Name, Drop: r == DetachConcurrentlyThenDrop, Started: time.Now().UTC()}
	var pending bool
	var comment *string
	err := conn.QueryRow(ctx, `SELECT p.oid, c.oid, pg_catalog.pg_get_expr(c.relpartbound, c.oid), i.inhdetachpending,
			pg_catalog.obj_description(c.oid, 'pg_class')
		FROM pg_catalog.pg_class p, pg_catalog.pg_class c, pg_catalog.pg_inherits i
		WHERE p.oid = $1::pg_catalog.regclass AND c.oid = $2::pg_catalog.regclass AND i.inhrelid = c.oid AND i.inhparent = p.oid`,
		parent, part.Name).Scan(&m.ParentOID, &m.TableOID, &m.Bound, &pending, &comment)
	if err != nil {
		return wrap("detach "+part.Name, err)
	}
	m.Previous = comment
	if old, ok := parseMarker(deref(comment)); ok {
		m.Previous = old.Previous
	}
	if !part.Lower.IsZero() {
		m.Lower = &part.Lower
	}
	if !part.Upper.IsZero() {
		m.Upper = &part.Upper
	}
	text, err := m.text()
	if err != nil {
		return fmt.Errorf("partition: detach %s: %w", part.Name, err)
	}
	if err := setComment(ctx, conn, m.TableOID, &text); err != nil {
		return keptBy(rep, part, "mark", err)
	}
	how := "CONCURRENTLY"
	if pending {
		how = "FINALIZE"
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s %s", parent, part.Name, how)); err != nil {
		// Refused: nothing was detached, give the comment back.
		if kerr := keptBy(rep, part, "detach", err); kerr != nil {
			return kerr
		}
		if err := setComment(ctx, conn, m.TableOID, m.Previous); err != nil {
			return wrap("comment "+part.Name, err)
		}
		return nil
	}
	return finishDetached(ctx, conn, m, part, rep)
}

// finishDetached does what follows the detach of the table m marks: DROP
// TABLE, or its own comment back.
func finishDetached(ctx context.Context, conn *pgx.Conn, m detachMarker, part Partition, rep *Report) error {
	rep.Detached = append(rep.Detached, part)
	if !m.Drop {
		if err := setComment(ctx, conn, m.TableOID, m.Previous); err != nil {
			return keptBy(rep, part, "comment", err)
		}
		return nil
	}
	if _, err := conn.Exec(ctx, "DROP TABLE "+part.Name); err != nil {
		return keptBy(rep, part, "drop", err)
	}
	rep.Dropped = append(rep.Dropped, part)
	return nil
}

// markedTable is a table carrying pgid's detach marker, as the catalog has
// it.
type markedTable struct {
	oid         uint32
	name        string // schema-qualified, quoted where needed
	comment     string
	relkind     string
	attached    bool    // a partition of the parent
	pending     bool    // and pending detach
	bound       *string // its partition bounds, if a partition
	otherParent bool    // a partition or child of another table
	ownerOK     bool    // owned by the parent's owner or a role with its privileges
	owner       string
	parentOwner string
	parentOID   uint32
	parentName  string   // the parent, as regclass prints it
	checks      []string // its CHECK constraints
}

// markedTables returns the tables whose comment begins with markerHead,
// with what finishDetaches checks of them against parent.
func markedTables(ctx context.Context, conn *pgx.Conn, parent string) ([]markedTable, error) {
	rows, err := conn.Query(ctx, `SELECT c.oid, pg_catalog.format('%I.%I', n.nspname, c.relname), d.description, c.relkind::pg_catalog.text,
			i.inhrelid IS NOT NULL, coalesce(i.inhdetachpending, false), pg_catalog.pg_get_expr(c.relpartbound, c.oid),
			EXISTS (SELECT FROM pg_catalog.pg_inherits o WHERE o.inhrelid = c.oid AND o.inhparent <> p.oid),
			c.relowner = p.relowner OR pg_catalog.pg_has_role(c.relowner, p.relowner, 'USAGE'),
			pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text, pg_catalog.pg_get_userbyid(p.relowner)::pg_catalog.text, p.oid, p.oid::pg_catalog.regclass::pg_catalog.text,
			ARRAY(SELECT pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k
			      WHERE k.conrelid = c.oid AND k.contype = 'c' ORDER BY k.conname)
		FROM pg_catalog.pg_class p
		JOIN pg_catalog.pg_description d ON d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
		                                AND pg_catalog.starts_with(d.description, $2)
		JOIN pg_catalog.pg_class c ON c.oid = d.objoid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_catalog.pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = p.oid
		WHERE p.oid = $1::pg_catalog.regclass
		ORDER BY c.oid`, parent, markerHead)
	if err != nil {
		return nil, wrap("find interrupted detaches of "+parent, err)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (markedTable, error) {
		var t markedTable
		err := row.Scan(&t.oid, &t.name, &t.comment, &t.relkind, &t.attached, &t.pending, &t.bound, &t.otherParent,
			&t.ownerOK, &t.owner, &t.parentOwner, &t.parentOID, &t.parentName, &t.checks)
		return t, err
	})
	if err != nil {
		return nil, wrap("find interrupted detaches of "+parent, err)
	}
	return ts, nil
}

// quoted are the literals of a partition bound: 'a', 'b' of FOR VALUES
// FROM ('a') TO ('b').
var quoted = regexp.MustCompile(`'(?:[^']|'')*'`)

// refusal says why t may not be finished as the marker m says, or "".
func (t markedTable) refusal(m detachMarker) string {
	switch {
	case m.TableOID != t.oid:
		return fmt.Sprintf("the marker was written for the table with OID %d, not for this one (OID %d)", m.TableOID, t.oid)
	case m.Table != t.name:
		return fmt.Sprintf("the marker names %s: the table was renamed since", m.Table)
	case t.relkind != "r" && t.relkind != "p":
		return "it is not a table"
	case !t.ownerOK:
		return fmt.Sprintf("it is owned by %s, neither the owner of %s (%s) nor a role with its privileges", t.owner, m.Parent, t.parentOwner)
	case t.attached:
		if t.bound == nil || *t.bound != m.Bound {
			return fmt.Sprintf("its bounds %s are not those the marker records, %s", deref(t.bound), m.Bound)
		}
	case t.otherParent:
		return "it is now a partition or child of another table"
	default:
		lits := quoted.FindAllString(m.Bound, -1)
		for _, c := range t.checks {
			all := len(lits) > 0 && strings.HasPrefix(c, "CHECK")
			for _, l := range lits {
				all = all && strings.Contains(c, l)
			}
			if all {
				return ""
			}
		}
		return fmt.Sprintf("it has no CHECK constraint with the bounds %s, which DETACH PARTITION … CONCURRENTLY adds", m.Bound)
	}
	return ""
}

// finishDetaches finishes the concurrent detaches of p.Parent's partitions
// that an earlier Ensure started and did not finish (its context ended, its
// connection broke): FINALIZE for a partition left pending detach, then
// DROP TABLE or the table's own comment back, as the marker says; a
// partition whose detach never began only gets its comment back. With
// p.DryRun it reports what it would do. A marked table that fails the
// checks of refusal is left alone, and reported in rep.Kept if its owner
// has the privileges of the parent's (a marker on a table of another role
// is ignored: that role can write any text there).
func finishDetaches(ctx context.Context, conn *pgx.Conn, p Plan, inTx bool, rep *Report) error {
	marked, err := markedTables(ctx, conn, p.Parent)
	if err != nil || len(marked) == 0 {
		return err
	}
	if !p.DryRun && (inTx || !p.Retire.concurrent() || p.Retain.IsZero()) {
		// Ensure holds no session-level lock: take one, and look again
		// under it (another Ensure may have finished them).
		unlock, err := lockParent(ctx, conn, p.Parent, inTx)
		if err != nil {
			return err
		}
		defer unlock()
		if marked, err = markedTables(ctx, conn, p.Parent); err != nil {
			return err
		}
	}
	for _, t := range marked {
		m, ok := parseMarker(t.comment)
		if !ok || m.ParentOID != t.parentOID {
			continue // another parent's
		}
		part := partitionOf(t.name, m.Lower, m.Upper)
		why := t.refusal(m)
		switch {
		case t.attached && (why != "" || !t.pending):
			// A partition of the parent: if the detach never began, give
			// it its comment back; retiring it is the retention's business.
			if why == "" && !p.DryRun {
				if err := setComment(ctx, conn, t.oid, m.Previous); err != nil {
					return wrap("comment "+t.name, err)
				}
			}
		case !t.ownerOK:
			// Someone else's table: not ours to drop, and what its marker
			// says is not ours to repeat.
		case why != "":
			rep.Kept = append(rep.Kept, Kept{Partition: part,
				Reason: fmt.Sprintf("it carries pgid's marker of a concurrent detach from %s, but pgid did not start this detach "+
					"or cannot prove it did: %s", p.Parent, why),
				Hint: "pgid leaves the table alone: drop it yourself if it is the partition pgid was detaching, " +
					"or remove its comment (COMMENT ON TABLE ... IS NULL)."})
		case p.DryRun:
			if t.pending || !m.Drop {
				rep.Detached = append(rep.Detached, part)
			}
			if m.Drop {
				rep.Dropped = append(rep.Dropped, part)
			}
		case t.pending:
			if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s FINALIZE", t.parentName, t.name)); err != nil {
				if err := keptBy(rep, part, "detach", err); err != nil {
					return err
				}
				continue
			}
			if err := finishDetached(ctx, conn, m, part, rep); err != nil {
				return err
			}
		case m.Drop:
			if _, err := conn.Exec(ctx, "DROP TABLE "+t.name); err != nil {
				if err := keptBy(rep, part, "drop", err); err != nil {
					return err
				}
				continue
			}
			rep.Dropped = append(rep.Dropped, part)
		default:
			if err := setComment(ctx, conn, t.oid, m.Previous); err != nil {
				return wrap("comment "+t.name, err)
			}
			rep.Detached = append(rep.Detached, part)
		}
	}
	return nil
}

// dedupe drops the repeats from the lists of a dry run, where a partition
// left pending detach is reported by finishDetaches and by the retention.
func dedupe(rep *Report) {
	for _, l := range []*[]Partition{&rep.Detached, &rep.Dropped} {
		seen := map[string]bool{}
		out := (*l)[:0]
		for _, p := range *l {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p)
			}
		}
		*l = out
	}
}
