// Command mixed must not compile: it passes an OrderID where a UserID is
// wanted, on line 30 (typecheck_test.go builds it and expects that error).
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
	fmt.Println(user)
	deleteUser(order)
}
