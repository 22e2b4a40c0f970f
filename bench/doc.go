// Package bench compares pgid's ID types with peer libraries and with pgx's own
// types. It is a module of its own so that the peers never enter the library's
// go.mod. Run it with:
//
//	cd bench && go test -run '^$' -bench . -benchmem
package bench
