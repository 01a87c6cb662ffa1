#!/usr/bin/env bash
# Runs part of the suite on another Node.js release, fetched from the npm registry (the `node`
# package), in a copy of the checkout: its node_modules are the checkout's (installed by its `npm ci`, same
# lockfile), hard-linked, but the native module (better-sqlite3), copied and built for that release's ABI against its
# headers (npm_config_nodedir); dist/ is the checkout's build, copied. The checkout's own files stay the default
# Node's. Run `npm ci` and `npm run build` in the checkout first.
#
#   scripts/node-leg.sh <major> [prepare | smoke] [vitest arguments...]
#   scripts/node-leg.sh 22 test/kernel --reporter=json --outputFile.json=test-artifacts/node22.json
#   scripts/node-leg.sh 24 smoke     # the operator's path: init, migrate, doctor, serve, curl --digest, SIGTERM
#   NODE_LEG_HEADERS=24.18.1 scripts/node-leg.sh 24 smoke test/kernel   # both, one build
#   NODE_LEG_DIR=/tmp/leg22 scripts/node-leg.sh 22 prepare   # only the copy and its install, done once:
#   NODE_LEG_DIR=/tmp/leg22 scripts/node-leg.sh 22 test/kernel   # then runs in it (CI prepares while it lints)
#
# With ccache on PATH, the native modules are compiled through it: SQLite's amalgamation, nine tenths of
# better-sqlite3's build, does not depend on Node's headers, so a build for another release (or the checkout's
# own npm ci, compiled through ccache too) leaves it in the cache and the next build takes seconds, not minutes.
#
# NODE_LEG_HEADERS builds the native modules against the headers of that release instead of
# the runtime's own: better-sqlite3 12.x built against Node 24.19+ headers aborts at teardown
# (nodejs/node#65446), built against 24.18.1 it runs on every 24.x (docs/decisions/0237-node-24-better-sqlite3-built-against-24-18-1-headers.md).
#
# The copy lives in $NODE_LEG_DIR (default: a temporary folder, removed at the end). Relative
# --outputFile paths are written to the checkout, not to the copy. Exit status: vitest's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
major=${1:?usage: scripts/node-leg.sh <major> <vitest arguments...>}
shift

leg=${NODE_LEG_DIR:-$(mktemp -d)}
[ -n "${NODE_LEG_DIR:-}" ] || trap 'rm -rf "$leg"' EXIT
mkdir -p "$leg/node" "$leg/repo"
prepared="$leg/prepared"

# The node package installs the release for this platform under node_modules/node/node_modules.
[ -f "$prepared" ] || (cd "$leg/node" && npm install --no-save --no-fund --no-audit --loglevel=error "node@${major}" >/dev/null)
nodedir=$(dirname "$(dirname "$(ls "$leg"/node/node_modules/node/node_modules/*/bin/node | head -n 1)")")
[ -x "$nodedir/bin/node" ] || { echo "node@${major}: no binary under $leg/node"; exit 1; }
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
if [ -n "${NODE_LEG_HEADERS:-}" ]; then
  mkdir -p "$leg/headers"
  [ -f "$prepared" ] ||
    (cd "$leg/headers" && npm install --no-save --no-fund --no-audit --loglevel=error "node@${NODE_LEG_HEADERS}" >/dev/null)
  npm_config_nodedir=$(dirname "$(dirname "$(ls "$leg"/headers/node_modules/node/node_modules/*/bin/node | head -n 1)")")
fi
echo "node-leg: $(node -v) from the npm registry ($nodedir), native modules built against $npm_config_nodedir"

if [ ! -f "$prepared" ]; then
  if command -v ccache >/dev/null 2>&1; then
    # Paths inside the copy hashed relative to it: the same sources in another folder are the same entry.
    export CC="${CC:-ccache gcc}" CXX="${CXX:-ccache g++}" CCACHE_BASEDIR="$leg/repo" CCACHE_NOHASHDIR=1
  fi
  [ -d "$repo/node_modules/better-sqlite3" ] || { echo "node-leg: run npm ci in $repo first"; exit 1; }
  # The tracked files as they are in the working tree (a fresh clone in CI).
  git ls-files -z | (cd "$repo" && xargs -0 tar -cf -) | tar -xf - -C "$leg/repo"
  ln -sfn "$repo/../shared" "$leg/shared" 2>/dev/null || true
  # node_modules hard-linked (seconds, where a second npm ci took a minute of a core), nothing in it written in place:
  # the caches tools keep there (.vite, .cache...: every dot entry but .bin and npm's .package-lock.json; the
  # checkout's suite may be writing them meanwhile) are left out, and the one package built for a Node release is a
  # copy of its own, rebuilt (its SQLite part from ccache).
  mkdir -p "$leg/repo/node_modules"
  for entry in "$repo"/node_modules/* "$repo"/node_modules/.[!.]*; do
    case "${entry##*/}" in
      .bin | .package-lock.json) cp -al "$entry" "$leg/repo/node_modules/" ;;
      .*) ;;
      better-sqlite3) cp -a "$entry" "$leg/repo/node_modules/" ;;
      *) cp -al "$entry" "$leg/repo/node_modules/" ;;
    esac
  done
  rm -rf "$leg/repo/node_modules/better-sqlite3/build"
  (cd "$leg/repo" && npm rebuild better-sqlite3 --no-fund --no-audit --loglevel=error >/dev/null)
  (cd "$leg/repo" && node -e 'require("better-sqlite3")(":memory:").prepare("select 1").get()')
  touch "$prepared"
  echo "node-leg: $(node -v) prepared in $leg/repo"
fi
[ "${1:-}" != prepare ] || exit 0

cd "$leg/repo"
# The build is the checkout's (plain JavaScript for every release), as it is when the leg starts.
[ -f "$repo/dist/bundle/mediactl.js" ] || { echo "node-leg: run npm run build in $repo first"; exit 1; }
rm -rf dist && cp -a "$repo/dist" dist

if [ "${1:-}" = smoke ]; then
  # What an operator does on this release, each step's exit status checked: a crash at exit
  # (a native module's teardown) would show here as a non-zero status or an abort message.
  dir=$(mktemp -d)
  run() { node "$leg/repo/bin/run.js" "$@"; }
  key=$(cd "$dir" && run init --admin-email admin@example.org --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).api_key))')
  (cd "$dir" && run migrate >/dev/null && run doctor >/dev/null)
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  (cd "$dir" && MEDIACTL_PORT=$port exec node "$leg/repo/bin/run.js" serve) >"$dir/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 1 120); do grep -q 'serving on' "$dir/serve.log" && break; sleep 0.5; done
  status=$(curl -s -o /dev/null -w '%{http_code}' --digest -u "admin:${key}" "http://127.0.0.1:${port}/")
  kill -TERM "$server"
  code=0
  wait "$server" || code=$?
  if [ "$status" != 200 ] || [ "$code" != 0 ] || grep -q 'Assertion failed' "$dir/serve.log"; then
    echo "node-leg smoke on $(node -v): GET / answered $status, serve exited $code"
    cat "$dir/serve.log"
    exit 1
  fi
  echo "node-leg smoke on $(node -v): init, migrate, doctor, serve, GET / 200 with Digest, SIGTERM exit 0"
  rm -rf "$dir"
  shift
  [ $# -gt 0 ] || exit 0
fi

# --outputFile paths relative to the checkout, not to the copy.
args=()
for arg in "$@"; do
  case "$arg" in
    --outputFile*=/*) args+=("$arg") ;;
    --outputFile*=*) args+=("${arg%%=*}=$repo/${arg#*=}") ;;
    *) args+=("$arg") ;;
  esac
done
npx vitest run "${args[@]}"
