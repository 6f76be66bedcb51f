// What `npm start` loads is what its configuration uses: a platform's SDK only when that channel
// is configured, the MCP SDK only when parley.config.yaml lists a server, pg only on PostgreSQL,
// and never the Prisma client (the running bot's store is the SQL driver; memory and start-up).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { cleanEnv } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SDKS = ['grammy', 'discord.js', '@larksuiteoapi/node-sdk', '@modelcontextprotocol/sdk'];

/** Starts bin/start.mjs until its ready block, stops it, and returns the npm packages it loaded. */
async function packagesLoaded(env: Record<string, string>): Promise<Set<string>> {
  return (await modulesLoaded(env)).packages;
}

/** The URLs of the modules bin/start.mjs loaded until its ready block, and their npm packages. */
async function modulesLoaded(env: Record<string, string>): Promise<{ modules: string[]; packages: Set<string> }> {
  const dir = tempDir('parley-lazy-');
  const log = join(dir, 'modules.txt');
  const child = spawn(process.execPath, ['--import', join(import.meta.dirname, 'record-modules.mjs'), join(ROOT, 'bin', 'start.mjs')], {
    cwd: dir,
    env: { ...cleanEnv(), PARLEY_WEB: 'off', PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'warn', PARLEY_TEST_MODULE_LOG: log, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitFor(() => out.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 'the ready block', 30_000);
  expect(child.exitCode, out).toBeNull();
  child.kill('SIGINT');
  await exited;
  const modules = readFileSync(log, 'utf8').split('\n');
  const packages = modules.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((name) => name !== undefined);
  return { modules, packages: new Set(packages) };
}

describe('npm start loads only what is configured', () => {
  it('no channel and no MCP server: none of the platform or MCP SDKs', async () => {
    const loaded = await packagesLoaded({});
    expect(loaded.has('better-sqlite3')).toBe(true); // the log works: the database driver is there
    expect(SDKS.filter((sdk) => loaded.has(sdk))).toEqual([]);
  });

  it('Telegram configured: grammY, and no other SDK; on SQLite neither Prisma nor pg', async () => {
    const telegram = await FakeTelegram.start();
    try {
      const { modules, packages: loaded } = await modulesLoaded({
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        // A model is configured (nothing listens there: an idle bot asks it nothing).
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_MODEL: 'idle-model',
      });
      expect(SDKS.filter((sdk) => loaded.has(sdk))).toEqual(['grammy']);
      expect([...loaded].filter((name) => name.startsWith('@prisma/') || name === 'pg' || name === 'pg-pool')).toEqual([]);
      // The model SDK's client loads with the first request (its error classes are light).
      expect(loaded.has('openai')).toBe(true);
      expect(modules.some((url) => url.includes('/node_modules/openai/client.'))).toBe(false);
      // zod's messages in English only: none of its 63 other translations.
      expect(modules.some((url) => url.endsWith('/zod/v4/locales/en.js'))).toBe(true);
      expect(modules.filter((url) => /\/zod\/v4\/locales\/(?!en\.js|index\.js)/.test(url))).toEqual([]);
      // Parsers an idle bot does not use: markdown-it loads at the first answer that needs parsing,
      // YAML with a configuration file or the first knowledge page written.
      expect(['markdown-it', 'yaml'].filter((name) => loaded.has(name))).toEqual([]);
      // The web console is off (PARLEY_WEB=off): none of its modules.
      expect(modules.filter((url) => url.includes('/adapters/web/') && !url.endsWith('/index.js') && !url.endsWith('/config.js'))).toEqual(
        [],
      );
    } finally {
      await telegram.close();
    }
  });

  it('a configuration file: its YAML parser loads (and the record above would see it)', async () => {
    const file = join(tempDir('parley-lazy-config-'), 'parley.config.yaml');
    writeFileSync(file, '# no MCP servers yet\n');
    const loaded = await packagesLoaded({ PARLEY_CONFIG: file });
    expect(loaded.has('yaml')).toBe(true);
  });
});
