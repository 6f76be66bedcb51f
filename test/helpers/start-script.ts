// The Node.js options `npm start` runs Parley with (package.json's start script), so that tests and
// benchmarks that start bin/start.mjs themselves run the process users run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const START = /^node((?: --[\w-]+(?:=\S+)?)*) bin\/start\.mjs$/;

export function startScriptNodeOptions(root: string): string[] {
  const { scripts } = z
    .object({ scripts: z.object({ start: z.string() }) })
    .parse(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  const options = START.exec(scripts.start)?.[1];
  if (options === undefined) throw new Error(`package.json's start script is not "node [--option...] bin/start.mjs": ${scripts.start}`);
  return options.split(' ').filter(Boolean);
}
