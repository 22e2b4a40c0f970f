package migrations

// functionsHistory lists the checksum ([FunctionsChecksum]) of every edition
// of functions/*.sql that pgid released, oldest first; the last is the
// current one (TestFunctionsHistory checks it). [Up] replaces definitions
// whose recorded checksum is in the list and leaves alone those it does not
// know: a newer pgid wrote them.
//
// When you change a file in functions/, append the new checksum (the test
// prints it); never remove one.
var functionsHistory = []string{
	"18fcdc8f9fe056df8edd5e73d8d8c55aae898cdcc4c5792c4e0aaa27c025067c",
}
