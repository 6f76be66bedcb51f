#!/usr/bin/env node
// The `parley` admin CLI, and `parley start`, which runs the bot (bin/start.mjs: what `npm start`
// runs) from the working directory: its .env, parley.config.ts and data folder. Checks the Node.js version first; only then loads the compiled CLI
// (dist/, rebuilt first if the sources changed). No top-level await: old versions must parse this file.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();
// V8's compiled code for every module, cached on disk (os.tmpdir()/node-compile-cache): later starts skip parsing.
module.enableCompileCache?.();
// `knowledge search` runs from the bundled build (scripts/bundle-cli.mjs) when there is one: it
// starts about 30 ms sooner. The other commands run the compiled modules as they are.
const BUNDLE = new URL('../dist/bundle/cli/main.js', import.meta.url);
const [group, command] = process.argv.slice(2);
const bundled = group === 'knowledge' && command === 'search';
// `doctor` runs through bin/doctor.mjs, which hands the CLI each platform's checks.
if (group === 'start') import('./start.mjs');
else
  import('./dist.mjs')
    .then((dist) => dist.ensureBuilt())
    .then(() =>
      group === 'doctor'
        ? import('./doctor.mjs').then((doctor) => doctor.runDoctor())
        : import(bundled && existsSync(BUNDLE) ? BUNDLE.href : '../dist/src/cli/main.js'),
    );
