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
	"66c1af1ef51b15808f117513aef4ac10c754fe8f3cf0f246aa1ce6363eee70e3",
}
