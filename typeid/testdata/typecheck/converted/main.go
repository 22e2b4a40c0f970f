// Command converted must not compile: it converts an OrderID into a UserID
// on line 29 (typecheck_test.go builds it and expects the build to fail
// there). ../ok is its control.
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
	order := typeid.New[OrderPrefix]()
	deleteUser(UserID(order))
}
