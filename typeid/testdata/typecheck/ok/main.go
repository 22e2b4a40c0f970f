// Command ok is the control for typecheck_test.go: the same program as
// ../mixed with the right ID type, which must compile.
package main

import (
	"fmt"

	"github.com/pgid/pgid/typeid"
)

type UserPrefix struct{}

func (UserPrefix) Prefix() string { return "user" }

type OrderPrefix struct{}

func (OrderPrefix) Prefix() string { return "order" }

type (
	UserID  = typeid.ID[UserPrefix]
	OrderID = typeid.ID[OrderPrefix]
)

func deleteUser(id UserID) { fmt.Println("delete", id) }

func main() {
	user := typeid.New[UserPrefix]()
	order := typeid.New[OrderPrefix]()
	deleteUser(user)
	fmt.Println(order)
}
