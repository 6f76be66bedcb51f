// Bundles the compiled CLI (dist/src/cli/main.js) into a few files under dist/bundle/cli/ for the
// commands that must start fast (`parley knowledge search`, see bin/parley.mjs): one file instead
// of ~190 modules to resolve and load, zod among them, saves about 30 ms of every start.
//
// Only pure-JavaScript packages listed here are bundled; everything else (native addons, Prisma
// and its generated clients, packages that find files or workers next to themselves) is left to
// Node, loaded from where it is installed. Code splitting keeps the command groups a search does
// not run in chunks it never loads. The output sits two folders deep in dist/ like dist/src/store/,
// so paths computed from import.meta.url (the migrations folder) land on the same files.
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

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
    // Bundled CommonJS packages call require() for Node's own modules.
    banner: { js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);" },
    plugins: [
      {
        name: 'parley-externals',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith('node:')) return { external: true };
            // Dependencies of a bundled package are bundled with it.
            if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
            return BUNDLED_PACKAGES.has(packageName(args.path)) ? undefined : { external: true };
          });
          // The generated Prisma clients read files beside them: imported from dist/src/store/generated/.
          build.onResolve({ filter: /\/generated\/(sqlite|postgresql)\/client\.js$/ }, (args) => ({
            path: relative(outdir, join(dirname(args.importer), args.path)),
            external: true,
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
