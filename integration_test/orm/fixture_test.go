package ormtest

import (
	"crypto/rand"
	"time"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// userPrefix is the TypeID prefix of the tests' user IDs.
type userPrefix struct{}

func (userPrefix) Prefix() string { return "user" }

// userID is a typed TypeID, stored in a uuid column.
type userID = typeid.ID[userPrefix]

// fixture is the IDs every ORM test stores: old was made an hour before
// the window the Since queries ask for, a and b inside it.
type fixture struct {
	window        time.Time
	old, a, b     ulidtype.ULID
	user          userID
	refA, refB    objectidtype.ObjectID
	refOld, extra objectidtype.ObjectID
}

func newFixture() fixture {
	now := time.Now()
	clock := now.Add(-time.Hour)
	gen := ulidtype.NewGenerator(func() time.Time { return clock }, rand.Reader)
	var f fixture
	f.old = gen.New()
	clock = now
	f.a, f.b = gen.New(), gen.New()
	f.window = now.Add(-time.Minute)
	f.user = typeid.FromULID[userPrefix](ulidtype.New())
	f.refOld, f.refA, f.refB, f.extra = objectidtype.New(), objectidtype.New(), objectidtype.New(), objectidtype.New()
	return f
}
