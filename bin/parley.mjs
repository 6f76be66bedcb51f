#!/usr/bin/env node
// The `parley` admin CLI. Checks the Node.js version first; only then loads the compiled CLI
// (dist/, rebuilt first if the sources changed). No top-level await: old versions must parse this file.
import module from 'node:module';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();
// V8's compiled code for every module, cached on disk (os.tmpdir()/node-compile-cache): later starts skip parsing.
module.enableCompileCache?.();
import('./dist.mjs').then((dist) => dist.ensureBuilt()).then(() => import('../dist/src/cli/main.js'));
