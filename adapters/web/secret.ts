// The per-install secret that signs the browsers' identity cookies: PARLEY_WEB_SECRET, or 32
// random bytes kept in <data folder>/web-console.secret (created once, readable by its owner only),
// so identities and admin rights survive restarts. Deleting the file signs everyone out.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/env.ts';

export const SECRET_FILE = 'web-console.secret';

function cannot(file: string, error: unknown): ConfigError {
  const reason = (error as NodeJS.ErrnoException).code ?? String(error);
  return new ConfigError(
    `web console: cannot keep its secret in ${file} (${reason}); fix the folder's permissions or set PARLEY_WEB_SECRET`,
  );
}

/** Creates the file atomically (write aside, then link), so two processes starting at once agree on one secret. */
function createOnce(file: string): void {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(aside, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

export function loadSecret(fromEnv: string | undefined, dataDir: string): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const file = join(dataDir, SECRET_FILE);
  let text: string;
  try {
    mkdirSync(dataDir, { recursive: true });
    createOnce(file);
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw cannot(file, error);
  }
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new ConfigError(
      `web console: ${file} does not hold the secret it wrote (64 hex digits); delete it to make a new one, or set PARLEY_WEB_SECRET`,
    );
  }
  return Buffer.from(text, 'hex');
}
