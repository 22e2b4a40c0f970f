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
	"bcde2387f226da47909d495a09429afab4ad4f3c190d12ceb95f13984f12ebc8",
}
