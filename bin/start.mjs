#!/usr/bin/env node
// `npm start`. Checks the Node.js version first; only then loads tsx and Parley (native modules
// included), which need a current Node.js. No top-level await: old versions must parse this file.
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();
import('tsx/esm/api').then((tsx) => {
  tsx.register();
  return import('../src/main.ts');
});
