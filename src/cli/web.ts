// `parley web reset-admins`: signs out every browser that is a web console admin, without a new
// secret (which would sign out everyone). It writes a new admin epoch, and the digest of a one-time
// login code, to <data folder>/web-console.admins, the file the console reads (adapters/web/
// admin-epoch.ts, the other side of this format); a running console follows at once.
// `parley web admin-link`: a new one-time admin login link, the epoch kept (nobody is signed out).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { httpUrl, parseEnv } from '../core/env.ts';
import { hostUrl, httpConfigFromEnv } from '../http/config.ts';
import { CliError, type CliContext } from './context.ts';

const ADMINS_FILE = 'web-console.admins';

/** Where the console keeps its per-install files: beside the SQLite database, ./data otherwise (as npm start). */
function dataDir(ctx: CliContext): string {
  const db = ctx.config.database;
  return db.provider === 'sqlite' && db.file !== ':memory:' ? dirname(db.file) : resolve(ctx.io.cwd, 'data');
}

function consoleUrl(env: Record<string, string | undefined>): string {
  const { PARLEY_WEB_PUBLIC_URL: publicUrl } = parseEnv(z.object({ PARLEY_WEB_PUBLIC_URL: httpUrl() }), env);
  if (publicUrl) return new URL(publicUrl).origin;
  const { host, port } = httpConfigFromEnv(env);
  return hostUrl(host, port);
}

const AdminsFileSchema = z.object({ epoch: z.union([z.string().regex(/^[0-9a-f]{32}$/), z.literal('')]) });

/** The epoch the console counts now ('' when no file: the first one). */
function currentEpoch(dir: string): string {
  const file = join(dir, ADMINS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new CliError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 1);
  }
  try {
    return AdminsFileSchema.parse(JSON.parse(text)).epoch;
  } catch {
    throw new CliError(`${file} is not as Parley wrote it; run parley web reset-admins to write a new one (it signs out every admin)`, 1);
  }
}

/** Writes the epoch (a new one unless given) and the login code (aside, then renamed: a console never reads half a file). */
function writeAdminsFile(dir: string, loginCode: string, epoch = randomBytes(16).toString('hex')): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, ADMINS_FILE);
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const content = {
    epoch,
    loginCode: createHash('sha256').update(loginCode, 'utf8').digest('hex'),
  };
  try {
    writeFileSync(aside, `${JSON.stringify(content)}\n`, { mode: 0o600 });
    renameSync(aside, file);
  } finally {
    rmSync(aside, { force: true });
  }
}

export function registerWebCommands(program: Command, ctx: CliContext): void {
  const web = program.command('web').description('The web console');
  web
    .command('reset-admins')
    .description('Sign out every admin browser of the web console (others stay signed in) and print a new one-time admin login link')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }) => {
      const url = consoleUrl(ctx.io.env);
      const loginCode = randomBytes(24).toString('base64url');
      writeAdminsFile(dataDir(ctx), loginCode);
      const adminLoginUrl = `${url}/admin-login?code=${loginCode}`;
      if (options.json) {
        ctx.json({ adminLoginUrl });
        return;
      }
      ctx.line('Signed out every admin browser of the web console (a running Parley follows at once).');
      ctx.line(`New admin login: ${adminLoginUrl} (works once; makes that browser an admin)`);
    });
  web
    .command('admin-link')
    .description('Print a new one-time admin login link for the web console (a running Parley accepts it at once; nobody is signed out)')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }) => {
      const dir = dataDir(ctx);
      const loginCode = randomBytes(24).toString('base64url');
      writeAdminsFile(dir, loginCode, currentEpoch(dir));
      const adminLoginUrl = `${consoleUrl(ctx.io.env)}/admin-login?code=${loginCode}`;
      if (options.json) {
        ctx.json({ adminLoginUrl });
        return;
      }
      ctx.line(`Admin login: ${adminLoginUrl}`);
      ctx.line('Open it once in the browser that should be an admin (it works once; an older link from this command stops working).');
    });
}
