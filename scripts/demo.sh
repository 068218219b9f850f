#!/usr/bin/env bash
# The main job, as a newcomer would run it: ingest the sample conversations in examples/ into a
# fresh workspace with no model and no network (model-free mode), then show what reverie now
# remembers: status, the three durable files, and the git log of how they came to be.
# Usage: scripts/demo.sh [WORKSPACE]   (default: a new temporary folder, kept for inspection)
set -euo pipefail
cd "$(dirname "$0")/.."
reverie=".venv/bin/reverie"
workspace=${1:-$(mktemp -d "${TMPDIR:-/tmp}/reverie-demo.XXXXXX")/workspace}
# The demo shows model-free mode; a model configured in this shell would otherwise be used.
unset REVERIE_MODEL REVERIE_MEMORY_MODEL REVERIE_BASE_URL REVERIE_WORKSPACE

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s$ reverie %s%s\n' "$bold" "$*" "$plain"; }

step "ingest examples/conversations.json examples/chatgpt-export"
"$reverie" --workspace "$workspace" ingest examples/conversations.json examples/chatgpt-export
step "status"
"$reverie" --workspace "$workspace" status
for file in SOUL.md USER.md memory/MEMORY.md; do
  printf '\n%s== %s%s\n' "$bold" "$file" "$plain"
  cat "$workspace/$file"
done
step "log"
"$reverie" --workspace "$workspace" log
step "search DuckDB"
"$reverie" --workspace "$workspace" search DuckDB --limit 3
printf '\nThe workspace is kept at %s (try: reverie -w %s show HEAD)\n' "$workspace" "$workspace"
