package typeid_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pgid/pgid/typeid"
)

// UserPrefix and OrderPrefix declare two ID types, UserID and OrderID.
type UserPrefix struct{}

func (UserPrefix) Prefix() string { return "user" }

type OrderPrefix struct{}

func (OrderPrefix) Prefix() string { return "order" }

type (
	UserID  = typeid.ID[UserPrefix]
	OrderID = typeid.ID[OrderPrefix]
)

func Example() {
	id, err := typeid.Parse[UserPrefix]("user_01h455vb4pex5vsknk084sn02q")
	if err != nil {
		panic(err)
	}
	fmt.Println(id)              // the TypeID text, for APIs
	fmt.Println(id.UUIDString()) // the uuid in the database
	fmt.Println(id.Timestamp())  // the UUIDv7's time
	b, _ := json.Marshal(struct{ ID UserID }{id})
	fmt.Println(string(b))

	// An order's ID is not a user's ID.
	_, err = typeid.Parse[UserPrefix]("order_01h455vb4pex5vsknk084sn02q")
	fmt.Println(errors.Is(err, typeid.ErrWrongPrefix), err)
	// Output:
	// user_01h455vb4pex5vsknk084sn02q
	// 01890a5d-ac96-774b-bcce-b302099a8057
	// 2023-06-30 03:34:18.518 +0000 UTC
	// {"ID":"user_01h455vb4pex5vsknk084sn02q"}
	// true typeid: parse "order_01h455vb4pex5vsknk084sn02q": prefix "order", want "user"
}

func ExampleNew() {
	a := typeid.New[OrderPrefix]()
	b := typeid.New[OrderPrefix]()
	fmt.Println(a.IsV7(), a.Compare(b), len(a.String()), a.Prefix())
	// Output: true -1 32 order
}

func ExampleRange() {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	lo, hi := typeid.Range[OrderPrefix](from, from.Add(24*time.Hour))
	// WHERE id >= $1 AND id < $2 with lo and hi: the orders of 1 November.
	fmt.Println(lo)
	fmt.Println(hi)
	// Output:
	// order_01m6a6ft000000000000000000
	// order_01m6crwh000000000000000000
}

func ExampleValidPrefix() {
	fmt.Println(typeid.ValidPrefix(UserPrefix{}.Prefix()))
	fmt.Println(typeid.ValidPrefix("User"))
	// Output:
	// <nil>
	// typeid: parse "User": invalid character 'U' at position 0 in the type's prefix, want a-z or '_'
}

func ExampleNullID() {
	var v struct {
		Parent typeid.NullID[OrderPrefix] `json:"parent"`
	}
	_ = json.Unmarshal([]byte(`{"parent":null}`), &v)
	fmt.Println(v.Parent.Valid, v.Parent)
	// Output: false NULL
}

func ExampleParseAny() {
	// Any TypeID, as in a log line: the prefix is in the value.
	a, err := typeid.ParseAny("order_01h455vb4pex5vsknk084sn02q")
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Prefix(), a.UUIDString())

	// Into a typed ID, after checking the prefix.
	order, err := typeid.FromAny[OrderPrefix](a)
	fmt.Println(order, err)
	_, err = typeid.FromAny[UserPrefix](a)
	fmt.Println(errors.Is(err, typeid.ErrWrongPrefix), err)
	// Output:
	// order 01890a5d-ac96-774b-bcce-b302099a8057
	// order_01h455vb4pex5vsknk084sn02q <nil>
	// true typeid: parse "order_01h455vb4pex5vsknk084sn02q": prefix "order", want "user"
}

func ExampleParseWithPrefix() {
	prefix := "user" // from configuration
	_, err := typeid.ParseWithPrefix(prefix, "order_01h455vb4pex5vsknk084sn02q")
	fmt.Println(err)
	// Output: typeid: parse "order_01h455vb4pex5vsknk084sn02q": prefix "order", want "user"
}

func ExampleAnyFromUUID() {
	// A uuid column holds no prefix: the caller gives it.
	u := typeid.MustParse[UserPrefix]("user_01h455vb4pex5vsknk084sn02q").UUID()
	a, err := typeid.AnyFromUUID("account", u)
	fmt.Println(a, err)
	_, err = typeid.AnyFromUUID("Account", u)
	fmt.Println(errors.Is(err, typeid.ErrPrefix))
	// Output:
	// account_01h455vb4pex5vsknk084sn02q <nil>
	// true
}
