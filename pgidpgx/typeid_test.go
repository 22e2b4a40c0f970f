package pgidpgx_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/typeid"
)

type UserPrefix struct{}

func (UserPrefix) Prefix() string { return "user" }

// TestRegisterTypeID: after RegisterTypeID every typed-ID form has its
// PostgreSQL type, and a slice encodes as a uuid[] in text format, as
// QueryExecModeExec sends it; before, pgx knows none of them.
func TestRegisterTypeID(t *testing.T) {
	forms := []struct {
		v    any
		want string
	}{
		{typeid.ID[UserPrefix]{}, "uuid"}, {(*typeid.ID[UserPrefix])(nil), "uuid"}, {typeid.NullID[UserPrefix]{}, "uuid"},
		{[]typeid.ID[UserPrefix](nil), "_uuid"}, {[]*typeid.ID[UserPrefix](nil), "_uuid"}, {[]typeid.NullID[UserPrefix](nil), "_uuid"},
		{[]sql.Null[typeid.ID[UserPrefix]](nil), "_uuid"}, {(*[]typeid.ID[UserPrefix])(nil), "_uuid"},
		{(*[]sql.Null[typeid.ID[UserPrefix]])(nil), "_uuid"},
	}
	m := pgtype.NewMap()
	for _, f := range forms {
		if typ, ok := m.TypeForValue(f.v); ok {
			t.Errorf("%T: pgx knows it as %s before RegisterTypeID", f.v, typ.Name)
		}
	}
	pgidpgx.RegisterTypeID[UserPrefix](m)
	for _, f := range forms {
		if typ, ok := m.TypeForValue(f.v); !ok || typ.Name != f.want {
			t.Errorf("%T: %v, want %s", f.v, typ, f.want)
		}
	}
	id := typeid.MustParse[UserPrefix]("user_01h455vb4pex5vsknk084sn02q")
	typ, _ := m.TypeForValue([]typeid.ID[UserPrefix]{})
	b, err := m.Encode(typ.OID, pgtype.TextFormatCode, []typeid.ID[UserPrefix]{id, {}}, nil)
	if err != nil || string(b) != "{01890a5d-ac96-774b-bcce-b302099a8057,00000000-0000-0000-0000-000000000000}" {
		t.Fatalf("text uuid[]: %q, %v", b, err)
	}
	var back []typeid.ID[UserPrefix]
	if err := m.Scan(typ.OID, pgtype.TextFormatCode, b, &back); err != nil || len(back) != 2 || back[0] != id || !back[1].IsZero() {
		t.Fatalf("scan uuid[]: %v, %v", back, err)
	}
}

func ExampleRegisterTypeID() {
	m := pgtype.NewMap() // conn.TypeMap(), for example in AfterConnect
	pgidpgx.RegisterTypeID[UserPrefix](m)
	typ, _ := m.TypeForValue([]typeid.ID[UserPrefix]{})
	fmt.Println(typ.Name)
	// Output: _uuid
}
