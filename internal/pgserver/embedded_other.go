//go:build !unix

package pgserver

import (
	"context"
	"errors"
)

// StartEmbedded is only available on Unix systems (Linux, macOS): the
// embedded PostgreSQL's user switch and path checks need them.
func StartEmbedded(ctx context.Context, o EmbeddedOptions) (*Server, error) {
	return nil, errors.New("the embedded PostgreSQL runs on Linux and macOS only: set DATABASE_URL or --database-url")
}

// StartStandby is only available on Unix systems, as [StartEmbedded].
func StartStandby(ctx context.Context, primary *Server, o EmbeddedOptions) (*Server, error) {
	return nil, ErrNotEmbedded
}
