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
	"39f48c99dd4c2a540dbe66270a60c3e9b3eba6ccedfeca63e0f05b014ed9b61c",
	"23e751850aba3ff7fcefbdfef96d9f1220a15f7fa3efdfacebcb3604ac180b63",
	"69bced1c2f4310ad6302364decaa154a5c0a40ff5e70bb4995da299cb05766ee",
}
