// The page's static files (adapters/web/public), read once at start. Only these names are served,
// so a request path never reaches the file system.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
}

const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'public');

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'uploads.js': 'text/javascript; charset=utf-8',
  'theme.css': 'text/css; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'admin.css': 'text/css; charset=utf-8',
  'admin.js': 'text/javascript; charset=utf-8',
};

export function loadAssets(): Map<string, Asset> {
  return new Map(Object.entries(FILES).map(([name, type]) => [name, { body: readFileSync(join(PUBLIC_DIR, name)), type }]));
}
