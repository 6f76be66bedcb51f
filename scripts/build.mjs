// Compiles src/ and adapters/ to dist/ with the project's
// TypeScript, emits the public API's type declarations (tsconfig.types.json: from src/index.ts
// only, into dist/types/), copies the files the code reads at run time (migrations, the web console's static
// files), bundles the CLI for a fast start (scripts/bundle-cli.mjs) and stamps the result with the state of its sources (bin/build-state.mjs). Runs at
// `npm install` and `npm pack` (the `prepare` script: never where Parley is installed as a
// dependency, whose dist/ came built in the tarball), and from bin/ when the sources changed since.
//
// Builds into a temporary folder and swaps it in, under a lock folder: processes starting side by
// side (tests) build once and never run a half-written dist/.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, distProblem, ROOT, STAMP_FILE, sourceState } from '../bin/build-state.mjs';

const LOCK = join(ROOT, '.dist.lock');
// A lock older than this was left by a build that died; tsc takes about 2 s here.
const LOCK_STALE_MS = 60_000;
const ASSETS = ['prisma/migrations', 'adapters/web/public'];

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function takeLock() {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      else sleep(100);
    }
  }
}

function compileTo(outDir) {
  const typescript = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  const tsc = join(typescript, 'bin', 'tsc');
  const inputs = sourceState(); // before compiling: a file edited meanwhile makes the stamp stale
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2], // tsc reports on stderr: stdout may be a command's JSON
  });
  // The declarations of the public API (src/index.ts and the few files its types reach), for projects
  // that import 'parley' (package.json "exports").
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.types.json'), '--outDir', join(outDir, 'types')], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  for (const asset of ASSETS) cpSync(join(ROOT, asset), join(outDir, asset), { recursive: true });
  // A child process: the bundler's API is asynchronous and this build is not. Without the bundle
  // bin/parley.mjs runs the compiled modules, only slower to start: a warning, not a failed build.
  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.mjs'), outDir], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  } catch (error) {
    rmSync(join(outDir, 'bundle'), { recursive: true, force: true });
    process.stderr.write(`parley: could not bundle the CLI (${error.message.split('\n')[0]}); it runs unbundled\n`);
  }
  writeFileSync(join(outDir, STAMP_FILE), `${JSON.stringify(inputs)}\n`);
}

/** Builds dist/ unless it already matches the sources (or `force`). Returns whether it built. */
export function build({ force = false } = {}) {
  takeLock();
  try {
    // Another process may have built while this one waited for the lock.
    if (!force && !distProblem()) return false;
    const tmp = `${DIST}.tmp-${process.pid}`;
    const old = `${DIST}.old-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    try {
      compileTo(tmp);
      rmSync(old, { recursive: true, force: true });
      try {
        renameSync(DIST, old);
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
      renameSync(tmp, DIST);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      rmSync(old, { recursive: true, force: true });
    }
    return true;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

// `node scripts/build.mjs` always builds; `--if-stale` only when dist/ does not match the sources.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  if (build({ force: !process.argv.includes('--if-stale') })) {
    console.log(`parley: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
