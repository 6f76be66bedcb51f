// Crash injection for tests: PARLEY_FAILPOINT=<name> (or <name>@<n>, the n-th time) makes the
// process kill itself with SIGKILL when it reaches the step of that name, so a test can put a
// `kill -9` exactly inside a crash window. The environment is read once; unset, each step costs
// one comparison with undefined.
const [armedName, armedHit] = parse(process.env.PARLEY_FAILPOINT);
let hits = 0;

function parse(value: string | undefined): [string | undefined, number] {
  if (!value) return [undefined, 1];
  const at = value.lastIndexOf('@');
  const n = at > 0 ? Number(value.slice(at + 1)) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? [value.slice(0, at), n] : [value, 1];
}

/** Names of the steps a test may arm (see the crash tests in test/gateway). */
export type FailpointName = 'answer-finished' | 'answer-sent' | 'stream-intent-recorded' | 'stream-message-sent' | 'approval-suspended';

export function failpoint(name: FailpointName): void {
  if (armedName === undefined || armedName !== name || ++hits !== armedHit) return;
  process.kill(process.pid, 'SIGKILL');
}
