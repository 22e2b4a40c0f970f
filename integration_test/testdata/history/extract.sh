#!/usr/bin/env bash
# Rebuilds this directory from git history: the migration files of every
# schema pgid shipped on main while it used tern (first-parent commits of
# main that changed migrations/*.sql), one blob per distinct file in files/,
# and MANIFEST listing each schema's files in order. Run from anywhere in
# the repository; the result is committed, so tests never need git.
set -euo pipefail
cd "$(dirname "$0")"
commits="326853b ae81791 e2b0f9f cd54335 7497d60 fe2f5d7 a83d427 4817093"
rm -rf files && mkdir files
{
  echo "# schema <n> <commit> <grant>: a schema pgid shipped on main; grant 1: its Up granted"
  echo "# SELECT on public.pgid_schema_version to PUBLIC. file <name> <blob>: its files, in order."
  n=0
  for c in $commits; do
    n=$((n + 1))
    grant=$(git show "$c:migrations/migrations.go" | grep -c 'GRANT SELECT ON' || true)
    echo "schema $n $(git rev-parse --short=12 "$c") $grant"
    git ls-tree --full-tree "$c" migrations/ | awk '$4 ~ /\.sql$/ {print $3, $4}' | while read -r blob path; do
      git cat-file blob "$blob" >"files/$blob.sql"
      echo "file ${path#migrations/} $blob"
    done
  done
} >MANIFEST
