// The container's HEALTHCHECK (and scripts/container-build.sh --smoke): exit 0 when GET /healthz on
// this process's listener answers 200 within 3 s, else 1. Plain Node, no dependencies.
const port = process.env.PARLEY_HTTP_PORT || '3000';
try {
  const answer = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
  process.exit(answer.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
