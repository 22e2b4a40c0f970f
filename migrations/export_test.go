package migrations

// FunctionsHistory exposes functionsHistory to the tests.
func FunctionsHistory() []string { return functionsHistory }

// ExpectedNames returns, from the reverse SQL the runner parses, the names
// of the functions it expects once the function definitions are applied,
// and of the domains the versioned files create.
func ExpectedNames() (functions, domains []string) {
	versioned, fn, err := load()
	if err != nil {
		panic(err)
	}
	for _, m := range dropFunction.FindAllStringSubmatch(fn.down, -1) {
		functions = append(functions, m[1])
	}
	for _, v := range versioned {
		for _, m := range dropDomain.FindAllStringSubmatch(v.down, -1) {
			domains = append(domains, m[1])
		}
	}
	return functions, domains
}

// PublicGrants exposes publicGrants to the tests: kind, name, privileges.
func PublicGrants() [][3]string {
	var out [][3]string
	for _, g := range publicGrants {
		out = append(out, [3]string{g.kind, g.name, g.privileges})
	}
	return out
}
