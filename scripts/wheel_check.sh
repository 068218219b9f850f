#!/usr/bin/env bash
# Installs that work from a built wheel: build reverie's wheel from this checkout, install it
# with ONE extra ([serve]) into a fresh virtual environment, and run it as a user would, in a
# fresh HOME: `reverie --help`, `init`, `status`, a model-free `ingest` and `search`, `serve
# --help`, then `reverie serve` itself answering its viewer page and an asset (package data
# made it into the wheel). The install hints it prints must resolve: `reverie init` writes
# `pip install '<the wheel>[anthropic]'` into reverie.toml, and pip resolves that command
# (--dry-run); once the wheel file is gone the hint names the extra's requirements instead,
# and pip resolves those too.
# Usage: scripts/wheel_check.sh [WORK_DIR]   (default: a new temporary folder, removed after)
# Needs only Python 3.11+ and the package registry (pip's cache is reused). Prints the time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python=$candidate; break; fi
  done
fi
if [ -n "${1:-}" ]; then
  work=$1; mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/reverie-wheel.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
unset REVERIE_MODEL REVERIE_MEMORY_MODEL REVERIE_BASE_URL REVERIE_WORKSPACE REVERIE_HOME \
  REVERIE_STORE REVERIE_PROVIDER REVERIE_API_KEY
pip_quiet=(--quiet --disable-pip-version-check)
fail() { echo "wheel check: $*" >&2; exit 1; }
step() { printf '== [%3d s] %s\n' "$(( $(date +%s) - started ))" "$*"; }

step "build the wheel (hatchling, pinned in pyproject.toml's build-system)"
"$python" -m pip wheel "${pip_quiet[@]}" --no-deps --wheel-dir "$work/dist" .
wheel=$(ls "$work"/dist/reverie-*.whl)

step "install $(basename "$wheel")[serve] into a fresh venv"
"$python" -m venv "$work/venv"
# --no-compile: the modules compile when first imported; compiling every installed file
# up front is most of the install's time on a busy machine.
"$work/venv/bin/python" -m pip install "${pip_quiet[@]}" --no-compile "$wheel[serve]"
reverie="$work/venv/bin/reverie"
export HOME="$work/home"
mkdir -p "$HOME"
cd "$work"  # nothing of the checkout on sys.path: the installed wheel alone runs

step "reverie --help"
"$reverie" --help >/dev/null
step "reverie init && reverie status"
"$reverie" init
"$reverie" status
step "reverie ingest (model-free) && reverie search"
"$reverie" ingest "$OLDPWD/examples/conversations.json"
"$reverie" search DuckDB --limit 1
step "reverie serve --help"
"$reverie" serve --help >/dev/null

step "the hint in reverie.toml names this wheel, and pip resolves it"
hint="pip install '$wheel[anthropic]'"
grep -qF "$hint" "$HOME/.reverie/default/reverie.toml" || fail "reverie.toml lacks: $hint"
"$work/venv/bin/python" -m pip install "${pip_quiet[@]}" --dry-run "$wheel[anthropic]"

step "reverie serve answers its viewer and an asset from the wheel"
port=$("$work/venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$reverie" serve --port "$port" >"$work/serve.log" 2>&1 &
serve_pid=$!
# The viewer wants the token serve prints; it logs in with a cookie, then the asset is served.
fetch='import pathlib, re, sys, time, urllib.request
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
for _ in range(300):
    found = re.search(r"token=(\S+)", pathlib.Path(sys.argv[2]).read_text())
    try:
        if found:
            for path in (f"/?token={found[1]}", "/assets/viewer.css"):
                opener.open(sys.argv[1] + path, timeout=2).read()
            sys.exit(0)
    except OSError as exc:
        print(exc, file=sys.stderr)
    time.sleep(0.1)
sys.exit(1)'
served=0
"$work/venv/bin/python" -c "$fetch" "http://127.0.0.1:$port" "$work/serve.log" || served=$?
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
[ "$served" -eq 0 ] || { cat "$work/serve.log" >&2; fail "reverie serve did not answer"; }

step "with the wheel gone, the hint names the extra's requirements, and pip resolves them"
mv "$wheel" "$work/moved.whl"
printed=$("$work/venv/bin/python" -c 'from reverie.config.extras import install_hint as h; print(h("anthropic"))')
case "$printed" in
  "pip install 'anthropic"*) ;;
  *) fail "unexpected hint once the wheel is gone: $printed" ;;
esac
eval "$work/venv/bin/python -m ${printed/pip install/pip install --quiet --dry-run}"

echo "wheel check passed in $(( $(date +%s) - started )) s"
