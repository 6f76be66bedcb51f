// Bundles the compiled CLI (dist/src/cli/main.js) into a few files under dist/bundle/cli/ for the
// commands that must start fast (`parley knowledge search`, see bin/parley.mjs): one file instead
// of ~190 modules to resolve and load, zod among them, saves about 30 ms of every start.
//
// Only pure-JavaScript packages listed here are bundled; everything else (native addons, packages
// that find files or workers next to themselves) is left to Node, loaded from where it is installed. Code splitting keeps the command groups a search does
// not run in chunks it never loads. The output sits two folders deep in dist/ like dist/src/store/,
// so paths computed from import.meta.url (the migrations folder) land on the same files.
import { isBuiltin } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENGLISH_LOCALES_INDEX } from '../bin/zod-english.mjs';

const BUNDLED_PACKAGES = new Set(['zod', 'commander', 'dotenv', 'stemmer']);
const ENTRIES = ['src/cli/main.js', 'src/knowledge/search/analyze-worker.js'];
const BUNDLE_DIR = join('bundle', 'cli');

const packageName = (specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/');

/** Builds the bundle from the compiled tree at `dist` (dist/ or a build's temporary folder). */
async function bundleCli(dist) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false; // no bundler installed: bin/ runs the unbundled build, only slower to start
  }
  const outdir = join(dist, BUNDLE_DIR);
  await esbuild.build({
    entryPoints: ENTRIES.map((entry) => join(dist, entry)),
    entryNames: '[name]',
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    // The project's packages, wherever the compiled tree is (a build's temporary folder).
    nodePaths: [join(import.meta.dirname, '..', 'node_modules')],
    // Bundled CommonJS packages may call require() for what is left external.
    banner: { js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);" },
    plugins: [
      {
        name: 'parley-externals',
        setup(build) {
          // Node's own modules through process.getBuiltinModule, not `import`: an ES import of one
          // makes a namespace of all its exports, reading every lazy getter (node:process then
          // creates process.stdin, node:fs loads fs/promises and readline): a few ms of each start.
          // An import() of one stays as it is: it happens on use, and bundled it would give only `default`.
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (isBuiltin(args.path))
              return args.kind === 'dynamic-import'
                ? { external: true }
                : { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: 'builtin' };
            // Dependencies of a bundled package are bundled with it.
            if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
            return BUNDLED_PACKAGES.has(packageName(args.path)) ? undefined : { external: true };
          });
          build.onLoad({ filter: /^/, namespace: 'builtin' }, (args) => ({
            contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
            loader: 'js',
          }));
          // zod's translations of its messages (64 of them, half of the bundled zod): Parley uses
          // the English default only (zod registers it itself); z.locales keeps just `en`.
          build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
            args.importer.includes(`${sep}node_modules${sep}zod${sep}`)
              ? { path: join(dirname(args.importer), args.path), namespace: 'zod-locales' }
              : undefined,
          );
          build.onLoad({ filter: /^/, namespace: 'zod-locales' }, (args) => ({
            contents: ENGLISH_LOCALES_INDEX,
            resolveDir: dirname(args.path),
          }));
        },
      },
    ],
  });
  return true;
}

// `node scripts/bundle-cli.mjs <dist>`: scripts/build.mjs runs it as a child (its build is synchronous).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!process.argv[2]) throw new Error('usage: node scripts/bundle-cli.mjs <dist folder>');
  await bundleCli(process.argv[2]);
}
