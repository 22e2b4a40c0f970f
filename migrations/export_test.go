package migrations

// FunctionsHistory exposes functionsHistory to the tests.
func FunctionsHistory() []string { return functionsHistory }
