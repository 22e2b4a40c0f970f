package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// publicGrants lists the privileges Up grants PUBLIC on pgid's objects:
// the kind of object (schema, table, sequence, function, type), its name in
// schema pgid (a name ending in * matches every name with that prefix) and
// the privileges, comma-separated. Any role may hold these; a privilege
// beyond them, or one of them WITH GRANT OPTION, held by a role that is not
// trusted makes Up, Down and status refuse the database (Up revokes such
// privileges that default privileges add to the objects it creates). A new
// object that PUBLIC may use needs its line here.
var publicGrants = []struct{ kind, name, privileges string }{
	{"schema", "pgid", "USAGE"},
	{"table", "schema_migrations", "SELECT"},
	{"sequence", "objectid_counter", "USAGE"}, // gen_objectid's nextval
	{"type", "*", "USAGE"},
	{"function", "*", "EXECUTE"},
}

// trust is what makes schema pgid untrustworthy, if anything.
type trust struct {
	objects []string // owned by a role not trusted, each "kind name (owner role)"
	access  []string // triggers, rules, policies, extensions, privileges: each "what (fix: statement)"
	revokes []string // the fixes of access that Up applies itself: REVOKE statements
	user    string   // the role running the query
	dbOwner string   // the database owner
}

// trustedRole is an SQL condition: the role of OID r is trusted. Trusted
// are the database owner, superusers, the role running the query and,
// unless that role is a superuser (which has every role's privileges), the
// roles whose privileges it has (pg_has_role USAGE: inherited membership).
// PUBLIC (OID 0) is not.
func trustedRole(r string) string {
	return `CASE WHEN ` + r + ` OPERATOR(pg_catalog.=) 0 THEN false
  WHEN ` + r + ` OPERATOR(pg_catalog.=) (SELECT d.datdba FROM pg_catalog.pg_database d
                  WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()) THEN true
  ELSE EXISTS (SELECT FROM pg_catalog.pg_roles tr, pg_catalog.pg_roles tu
               WHERE tr.oid OPERATOR(pg_catalog.=) ` + r + ` AND tu.rolname OPERATOR(pg_catalog.=) CURRENT_USER
                 AND (tr.rolsuper OR tr.oid OPERATOR(pg_catalog.=) tu.oid
                      OR (NOT tu.rolsuper AND pg_catalog.pg_has_role(tu.oid, tr.oid, 'USAGE'))))
END`
}

// pgidObjects lists every object of schema pgid, the schema too: kind,
// name and owner.
var pgidObjects = func() string {
	arms := []string{"SELECT 'schema', 'pgid', x.nspowner " +
		"FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) 'pgid'"}
	// Each kind of object a schema can hold: its catalog, the column prefix
	// of its name, owner and namespace columns, how its name is shown
	// (empty: pgid.name), and further conditions.
	for _, k := range []struct{ kind, catalog, col, name, where string }{
		{"relation", "pg_class", "rel", "", ""},
		{"function", "pg_proc", "pro", "x.oid::pg_catalog.regprocedure::pg_catalog.text", ""},
		// A type, but not a relation's row type nor an array type: those
		// follow their relation or element type.
		{"type", "pg_type", "typ", "", " AND x.typrelid OPERATOR(pg_catalog.=) 0" +
			" AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.typarray OPERATOR(pg_catalog.=) x.oid)"},
		{"operator", "pg_operator", "opr", "x.oid::pg_catalog.regoperator::pg_catalog.text", ""},
		{"operator class", "pg_opclass", "opc", "", ""},
		{"operator family", "pg_opfamily", "opf", "", ""},
		{"collation", "pg_collation", "coll", "", ""},
		{"conversion", "pg_conversion", "con", "", ""},
		{"text search configuration", "pg_ts_config", "cfg", "", ""},
		{"text search dictionary", "pg_ts_dict", "dict", "", ""},
		{"statistics object", "pg_statistic_ext", "stx", "", ""},
	} {
		name := k.name
		if name == "" {
			name = "pg_catalog.format('pgid.%I', x." + k.col + "name)"
		}
		arms = append(arms, fmt.Sprintf("SELECT '%s', %s, x.%sowner FROM pg_catalog.%s x\n  "+
			"WHERE x.%snamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')%s",
			k.kind, name, k.col, k.catalog, k.col, k.where))
	}
	return "\n  " + strings.Join(arms, "\n  UNION ALL\n  ") + "\n"
}()

// untrustedObjects lists every object of schema pgid, the schema too, whose
// owner is not trusted (trustedRole). Such a role can change the object (a
// schema's owner can drop and recreate anything in it), and so make pgid's
// functions run its code as whoever calls them.
var untrustedObjects = `
SELECT o.kind, o.name, pg_catalog.pg_get_userbyid(o.owner) FROM (` + pgidObjects + `) o(kind, name, owner)
WHERE NOT (` + trustedRole("o.owner") + `)
ORDER BY 1, 2`

// untrustedAccess lists what else lets a role run its code as whoever
// runs pgid's migrations or functions: each row a problem, the statement
// that fixes it, and whether Up may apply that statement itself (a
// privilege it revokes). The problems: a trigger, rule (other than a
// view's) or row security policy on a relation of schema pgid (pgid makes
// none); an extension with objects in schema pgid; a privilege on an
// object of schema pgid, one of its columns included, held by a role that
// is not trusted, beyond what publicGrants gives PUBLIC or WITH GRANT
// OPTION.
var untrustedAccess = func() string {
	var grants []string
	for _, g := range publicGrants {
		grants = append(grants, fmt.Sprintf("(%s, %s, %s)", quote(g.kind), quote(g.name), quote(g.privileges)))
	}
	return `
WITH acl(kind, bare, name, target, cols, owner, acl) AS (
  SELECT 'schema', x.nspname::pg_catalog.text, 'schema pgid', 'SCHEMA pgid', '', x.nspowner,
         COALESCE(x.nspacl, pg_catalog.acldefault('n', x.nspowner))
  FROM pg_catalog.pg_namespace x WHERE x.nspname OPERATOR(pg_catalog.=) 'pgid'
  UNION ALL
  SELECT k.kind, x.relname::pg_catalog.text, pg_catalog.format('%s pgid.%I', k.kind, x.relname),
         pg_catalog.format('%s pgid.%I', pg_catalog.upper(k.kind), x.relname), '', x.relowner,
         COALESCE(x.relacl, pg_catalog.acldefault(k.c, x.relowner))
  FROM pg_catalog.pg_class x,
       LATERAL (SELECT CASE WHEN x.relkind OPERATOR(pg_catalog.=) 'S' THEN 'sequence' ELSE 'table' END,
                       CASE WHEN x.relkind OPERATOR(pg_catalog.=) 'S' THEN 's' ELSE 'r' END::pg_catalog."char") k(kind, c)
  WHERE x.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
    AND x.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,v,m,f,S}'::pg_catalog."char"[])
  UNION ALL
  SELECT 'table', c.relname::pg_catalog.text, pg_catalog.format('column pgid.%I.%I', c.relname, a.attname),
         pg_catalog.format('TABLE pgid.%I', c.relname), pg_catalog.format(' (%I)', a.attname), c.relowner, a.attacl
  FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
  WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid') AND a.attacl IS NOT NULL
    AND NOT a.attisdropped
  UNION ALL
  SELECT 'function', x.proname::pg_catalog.text, pg_catalog.format('function %s', x.oid::pg_catalog.regprocedure),
         pg_catalog.format('ROUTINE %s', x.oid::pg_catalog.regprocedure), '', x.proowner,
         COALESCE(x.proacl, pg_catalog.acldefault('f', x.proowner))
  FROM pg_catalog.pg_proc x WHERE x.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
  UNION ALL
  SELECT 'type', x.typname::pg_catalog.text, pg_catalog.format('type pgid.%I', x.typname),
         pg_catalog.format('TYPE pgid.%I', x.typname), '', x.typowner,
         COALESCE(x.typacl, pg_catalog.acldefault('T', x.typowner))
  FROM pg_catalog.pg_type x WHERE x.typnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
    AND (x.typrelid OPERATOR(pg_catalog.=) 0
         OR EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) x.typrelid
                      AND c.relkind OPERATOR(pg_catalog.=) 'c'))
    AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.typarray OPERATOR(pg_catalog.=) x.oid)
), held AS (
  SELECT a.name, a.target, a.cols, e.grantee, e.privilege_type AS priv, e.is_grantable AS grantable,
         EXISTS (SELECT FROM (VALUES ` + strings.Join(grants, ", ") + `) g(kind, name, privileges)
                 WHERE g.kind OPERATOR(pg_catalog.=) a.kind
                   AND CASE WHEN g.name OPERATOR(pg_catalog.~~) '%*'
                            THEN pg_catalog.starts_with(a.bare, pg_catalog.rtrim(g.name, '*'))
                            ELSE g.name OPERATOR(pg_catalog.=) a.bare END
                   AND e.privilege_type OPERATOR(pg_catalog.=) ANY (pg_catalog.string_to_array(g.privileges, ','))) AS public
  FROM acl a, pg_catalog.aclexplode(a.acl) e
  WHERE e.grantee OPERATOR(pg_catalog.<>) a.owner AND NOT (` + trustedRole("e.grantee") + `)
), bad AS (
  SELECT h.*, CASE WHEN h.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                   ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(h.grantee)) END AS who
  FROM held h WHERE NOT h.public OR h.grantable
)
SELECT p.problem, p.fix, p.revoke FROM (
  SELECT pg_catalog.format('%s: %s holds %s', b.name, b.who,
           pg_catalog.string_agg(CASE WHEN b.grantable THEN pg_catalog.format('%s WITH GRANT OPTION', b.priv) ELSE b.priv END,
                                 ', ' ORDER BY b.priv)),
         pg_catalog.format('REVOKE %s%s ON %s FROM %s CASCADE', CASE WHEN b.public THEN 'GRANT OPTION FOR ' ELSE '' END,
           pg_catalog.string_agg(pg_catalog.format('%s%s', b.priv, b.cols), ', ' ORDER BY b.priv), b.target, b.who),
         true
  FROM bad b GROUP BY b.name, b.target, b.who, b.public
  UNION ALL
  SELECT pg_catalog.format('trigger %I on pgid.%I (function %s, owner %s)', t.tgname, c.relname,
           t.tgfoid::pg_catalog.regprocedure, pg_catalog.pg_get_userbyid(f.proowner)),
         pg_catalog.format('DROP TRIGGER %I ON pgid.%I', t.tgname, c.relname), false
  FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tgrelid
    JOIN pg_catalog.pg_proc f ON f.oid OPERATOR(pg_catalog.=) t.tgfoid
  WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
  UNION ALL
  SELECT pg_catalog.format('rule %I on pgid.%I', r.rulename, c.relname),
         pg_catalog.format('DROP RULE %I ON pgid.%I', r.rulename, c.relname), false
  FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.ev_class
  WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
    AND r.rulename OPERATOR(pg_catalog.<>) '_RETURN'
  UNION ALL
  SELECT pg_catalog.format('policy %I on pgid.%I', p.polname, c.relname),
         pg_catalog.format('DROP POLICY %I ON pgid.%I', p.polname, c.relname), false
  FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) p.polrelid
  WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
  UNION ALL
  SELECT pg_catalog.format('extension %I (owner %s) has objects in schema pgid', e.extname,
           pg_catalog.pg_get_userbyid(e.extowner)),
         pg_catalog.format('DROP EXTENSION %I', e.extname), false
  FROM pg_catalog.pg_extension e
  WHERE e.extnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
     OR e.oid OPERATOR(pg_catalog.=) ANY (ARRAY(
          SELECT d.refobjid FROM pg_catalog.pg_depend d
          WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
            AND d.deptype OPERATOR(pg_catalog.=) 'e'
            AND ((d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
                  AND d.objid OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid'))
                 OR (pg_catalog.pg_identify_object(d.classid, d.objid, 0)).schema OPERATOR(pg_catalog.=) 'pgid')))
) p(problem, fix, revoke)
ORDER BY 1`
}()

// querier is a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readTrust reads what untrustedObjects and untrustedAccess find.
func readTrust(ctx context.Context, q querier) (trust, error) {
	var t trust
	err := q.QueryRow(ctx, `SELECT CURRENT_USER::pg_catalog.text, pg_catalog.pg_get_userbyid(d.datdba)
		FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()`).Scan(&t.user, &t.dbOwner)
	if err != nil {
		return t, fmt.Errorf("read the owners of schema pgid: %w", err)
	}
	rows, err := q.Query(ctx, untrustedObjects)
	if err != nil {
		return t, fmt.Errorf("read the owners of schema pgid: %w", err)
	}
	var kind, name, owner string
	_, err = pgx.ForEachRow(rows, []any{&kind, &name, &owner}, func() error {
		t.objects = append(t.objects, fmt.Sprintf("%s %s (owner %s)", kind, name, owner))
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("read the owners of schema pgid: %w", err)
	}
	rows, err = q.Query(ctx, untrustedAccess)
	if err != nil {
		return t, fmt.Errorf("read the privileges on schema pgid: %w", err)
	}
	var problem, fix string
	var revoke bool
	_, err = pgx.ForEachRow(rows, []any{&problem, &fix, &revoke}, func() error {
		t.access = append(t.access, fmt.Sprintf("%s (fix: %s)", problem, fix))
		if revoke {
			t.revokes = append(t.revokes, fix)
		}
		return nil
	})
	if err != nil {
		return t, fmt.Errorf("read the privileges on schema pgid: %w", err)
	}
	return t, nil
}

// trusted names who trust's errors say is trusted.
func (t trust) trusted() string {
	return fmt.Sprintf("the role running this (%s), the roles whose privileges it has, the database owner (%s) and superusers",
		t.user, t.dbOwner)
}

// err returns ErrUntrusted naming what makes schema pgid untrustworthy and
// the fix, or nil.
func (t trust) err() error {
	var parts []string
	if len(t.objects) > 0 {
		parts = append(parts, fmt.Sprintf("%s: owned by a role other than %s; such a role can redefine pgid's "+
			"functions to run its own code as whoever calls them. "+
			"Fix: as the database owner or a superuser, look at what is in schema pgid; if that role is not yours, "+
			"remove it (DROP SCHEMA pgid CASCADE, when nothing of yours uses it) and run up again; if it is, give "+
			"what it owns there to the database owner (ALTER SCHEMA pgid OWNER TO %s, ALTER ... OWNER TO for each object)",
			list(t.objects), t.trusted(), t.dbOwner))
	}
	if len(t.access) > 0 {
		parts = append(parts, fmt.Sprintf("%s: each lets a role other than %s run its own code as whoever runs "+
			"pgid's migrations or functions (pgid makes no triggers, rules or policies, puts no extension in schema "+
			"pgid and grants PUBLIC only USAGE on the schema and types, EXECUTE on functions and SELECT on %s). "+
			"Fix: as the database owner or a superuser, run each fix named, then run up again",
			list(t.access), t.trusted(), VersionTable))
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; Up, Down and status refuse the database until then", ErrUntrusted, strings.Join(parts, ". Also: "))
}

// trustedNow returns ErrUntrusted if schema pgid, as the transaction tx
// sees it, is not trustworthy: each step checks before it commits, so that
// a schema pgid another role made after Up read the state (CREATE SCHEMA
// IF NOT EXISTS then leaves it as it is) is never committed to. While no
// untrusted role owns anything there, it first revokes the privileges that
// untrustedAccess finds: those that default privileges (ALTER DEFAULT
// PRIVILEGES) gave the objects the step created (any that were there
// before made Up refuse the database).
func trustedNow(ctx context.Context, tx pgx.Tx) error {
	t, err := readTrust(ctx, tx)
	if err != nil {
		return err
	}
	if len(t.objects) > 0 || len(t.revokes) == 0 {
		return t.err()
	}
	for _, fix := range t.revokes {
		if _, err := tx.Exec(ctx, fix); err != nil {
			return fmt.Errorf("%s: %w", fix, err)
		}
	}
	if t, err = readTrust(ctx, tx); err != nil {
		return err
	}
	return t.err()
}
