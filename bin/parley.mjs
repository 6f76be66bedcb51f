#!/usr/bin/env node
// The `parley` admin CLI. Parley runs its TypeScript sources directly through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
