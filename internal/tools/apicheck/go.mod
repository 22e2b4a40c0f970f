module github.com/pgid/pgid/internal/tools/apicheck

go 1.25.0
