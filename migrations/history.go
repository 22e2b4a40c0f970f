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
	"d928b87bbc72f1476fa7ee6dd65e715554b8b0c150f434d81300d1440f4037b0",
}
