#!/usr/bin/env bash
# The build steps of Parley's container image, in one place: the Dockerfile runs this script, and
# .ci/run runs it (with --smoke) in a clean copy of the repository, outside any container, so the
# image's steps are exercised on every CI run although the CI machines have no Docker engine.
#
#   scripts/container-build.sh            install the dependencies (npm ci, whose prepare script
#                                         compiles dist/ with the dev dependencies TypeScript and
#                                         esbuild), drop the dev dependencies, check dist/ is current
#   scripts/container-build.sh --smoke    the same, then start the result (node bin/start.mjs on a
#                                         temporary SQLite database) and wait for GET /healthz = 200
#
# Run from the folder holding what the image copies (the files .dockerignore lets through).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
[[ "${1:-}" == "--smoke" ]] && smoke=true

npm ci --no-audit --no-fund
npm prune --omit=dev --no-audit --no-fund
# prepare built dist/; the image must never rebuild at start (its code is read-only there).
node --input-type=module -e "
  const { distProblem } = await import('./bin/build-state.mjs');
  const problem = distProblem();
  if (problem) { console.error('container-build: dist/ is ' + problem + ' after npm ci'); process.exit(1); }
"
# Nothing the running image needs: the npm cache.
npm cache clean --force >/dev/null 2>&1 || true

$smoke || exit 0

data="$(mktemp -d)"
port="$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
log="$data/parley.log"
# An empty environment apart from what a container sets: no .env of the developer's, no model.
env -i PATH="$PATH" HOME="$data" PARLEY_HTTP_HOST=127.0.0.1 PARLEY_HTTP_PORT="$port" \
  DATABASE_URL="file:$data/parley.db" PARLEY_LOG_LEVEL=warn \
  node bin/start.mjs >"$log" 2>&1 &
pid=$!
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap stop EXIT
for _ in $(seq 1 100); do
  if PARLEY_HTTP_PORT="$port" node scripts/healthcheck.mjs 2>/dev/null; then
    echo "container-build: the built image's start answers GET /healthz (port $port)"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { echo "container-build: Parley exited before /healthz answered:" >&2; cat "$log" >&2; exit 1; }
  sleep 0.3
done
echo "container-build: no answer from GET /healthz in 30 s:" >&2
cat "$log" >&2
exit 1
