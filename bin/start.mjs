#!/usr/bin/env node
// `npm start`. Checks the Node.js version first; only then loads Parley's compiled JavaScript
// (dist/, rebuilt first if the sources changed) and its native modules, which need a current
// Node.js. No top-level await: old versions must parse this file.
import module from 'node:module';
import { requireSupportedNode } from './node-version.mjs';
import { zodEnglishOnly } from './zod-english.mjs';

requireSupportedNode();
zodEnglishOnly();
// V8's compiled code for every module, cached on disk (os.tmpdir()/node-compile-cache): later starts skip parsing.
module.enableCompileCache?.();
import('./dist.mjs').then((dist) => dist.ensureBuilt()).then(() => import('../dist/src/main.js'));
