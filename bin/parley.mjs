#!/usr/bin/env node
// The `parley` admin CLI. Checks the Node.js version first; only then loads tsx (Parley runs its
// TypeScript sources directly) and the CLI. No top-level await: old versions must parse this file.
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();
import('tsx/esm/api').then((tsx) => {
  tsx.register();
  return import('../src/cli/main.ts');
});
