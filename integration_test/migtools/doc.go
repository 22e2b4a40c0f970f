// Package migtools_test holds tested examples of pgid beside the migration
// tools Go services use (pressly/goose v3, golang-migrate v4) and the test
// that runs README.md's first Go block from a module outside the library.
// It is a package of the integration_test module, which holds every
// third-party test dependency, so the library's go.mod gains nothing. The
// tests use the PostgreSQL at DATABASE_URL (default: the docker-compose
// server on 127.0.0.1:5432), creating and dropping scratch databases.
package migtools_test
