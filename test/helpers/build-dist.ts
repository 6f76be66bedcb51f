// Vitest global setup: bin/start.mjs and bin/parley.mjs run the compiled dist/; build it once per
// run when it does not match the sources, so child processes never each rebuild it on their own.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
}
