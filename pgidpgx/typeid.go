package pgidpgx

import (
	"database/sql"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/typeid"
)

// RegisterTypeID names the PostgreSQL types of the typed IDs of prefix type
// P, as [Register] does for ULIDs: typeid.ID[P], *typeid.ID[P] and
// typeid.NullID[P] are uuid; their slices, slices of sql.Null[typeid.ID[P]]
// and pointers to all of these are uuid[]. Register cannot do it for every
// P, so call it once per prefix type on each connection's map, for example
// in AfterConnect. Single typed IDs need nothing in any QueryExecMode, nor
// do slices in the binary modes; slices as parameters (id = ANY($1)) in
// QueryExecModeExec and QueryExecModeSimpleProtocol fail without it.
func RegisterTypeID[P typeid.Prefix](m *pgtype.Map) {
	for _, v := range []any{typeid.ID[P]{}, (*typeid.ID[P])(nil), typeid.NullID[P]{}} {
		m.RegisterDefaultPgType(v, "uuid")
	}
	for _, v := range []any{
		[]typeid.ID[P](nil), []*typeid.ID[P](nil), []typeid.NullID[P](nil), []sql.Null[typeid.ID[P]](nil),
		(*[]typeid.ID[P])(nil), (*[]*typeid.ID[P])(nil), (*[]typeid.NullID[P])(nil), (*[]sql.Null[typeid.ID[P]])(nil),
	} {
		m.RegisterDefaultPgType(v, "_uuid")
	}
}
