// Makes sure dist/ holds the compiled current sources before bin/ runs it: never stale code
// silently. The check is a stat walk of a few milliseconds; a rebuild (about 2 s) happens only
// after the sources changed, and says so on a terminal.
import { distProblem } from './build-state.mjs';

export async function ensureBuilt() {
  const problem = distProblem();
  if (!problem) return;
  // Said to people only: scripts and tests that read stderr see the same output as without a rebuild.
  if (process.stderr.isTTY) {
    process.stderr.write(
      problem === 'missing'
        ? 'parley: dist/ is missing; building it (npm run build)...\n'
        : 'parley: the sources changed since dist/ was built; rebuilding it (npm run build)...\n',
    );
  }
  try {
    const { build } = await import('../scripts/build.mjs');
    build();
  } catch (error) {
    process.stderr.write(
      `parley: could not build dist/ (${error instanceof Error ? error.message : String(error)}); run \`npm run build\` and try again.\n`,
    );
    process.exit(1);
  }
}
