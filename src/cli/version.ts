// Parley's version, from its package.json: the nearest one named "parley" above this file (the
// same from src/, from dist/ and from the bundle).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const PackageSchema = z.object({ name: z.string(), version: z.string() });

export function parleyVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const parsed = PackageSchema.safeParse(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
      if (parsed.success && parsed.data.name === 'parley') return parsed.data.version;
    } catch {
      // No (readable) package.json here: look further up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
