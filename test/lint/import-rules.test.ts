// The architecture's import rules (.dependency-cruiser.cjs, run by `npm run lint`): the real
// dependency-cruiser CLI on a small tree in which each rule is broken once, beside imports it allows.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempDir } from '../helpers/harness.ts';

const ROOT = process.cwd();

const TREE: Record<string, string[]> = {
  'src/main.ts': ['../adapters/web/console.ts', './agent/loop.ts'],
  'src/agent/loop.ts': ['grammy', '../../adapters/web/console.ts', '../core/types.ts'],
  'src/gateway/routes.ts': ['@prisma/client', 'discord.js'],
  'src/store/db.ts': ['@prisma/client', 'better-sqlite3'],
  'bin/tool.mjs': ['@prisma/adapter-pg'],
  'src/core/types.ts': ['../gateway/routes.ts'],
  'src/memory/one.ts': ['./two.ts'],
  'src/memory/two.ts': ['./one.ts'],
  'adapters/web/console.ts': ['../../src/core/types.ts', '../../src/gateway/routes.ts', '../telegram/bot.ts', 'grammy', 'hono'],
  'adapters/telegram/bot.ts': ['grammy', '@grammyjs/auto-retry', '../../src/core/types.ts', 'discord.js'],
  'adapters/discord/bot.ts': ['discord.js', '@larksuiteoapi/node-sdk'],
  'adapters/feishu/bot.ts': ['@larksuiteoapi/node-sdk'],
};

const ResultSchema = z.object({
  summary: z.object({
    violations: z.array(z.object({ rule: z.object({ name: z.string() }), from: z.string(), to: z.string() })),
  }),
});

const dir = tempDir('parley-import-rules-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cruise(): Promise<string[]> {
  for (const [file, imports] of Object.entries(TREE)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), imports.map((spec) => `import '${spec}';\n`).join(''));
  }
  // The npm rules need the manifest (what counts as a dependency) and the packages themselves.
  for (const file of ['package.json', 'tsconfig.json']) copyFileSync(join(ROOT, file), join(dir, file));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const run = promisify(execFile);
  const depcruise = join(ROOT, 'node_modules', '.bin', 'depcruise');
  const args = ['src', 'adapters', 'bin', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'];
  // It exits non-zero when it finds violations; the report is on stdout either way.
  const stdout = await run(depcruise, args, { cwd: dir, maxBuffer: 16 << 20 }).then(
    (done) => done.stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
  const { violations } = ResultSchema.parse(JSON.parse(stdout)).summary;
  const target = (to: string) => (to.includes('node_modules/') ? /node_modules\/((@[^/]+\/)?[^/]+)/.exec(to)![1]! : to);
  return violations.map((v) => `${v.rule.name}: ${v.from} → ${target(v.to)}`).sort();
}

describe('the import rules', () => {
  it('refuse each forbidden import, and only those', { timeout: 60_000 }, async () => {
    expect(await cruise()).toEqual(
      [
        'adapter-imports-no-other-adapter: adapters/web/console.ts → adapters/telegram/bot.ts',
        'adapter-imports-only-core: adapters/web/console.ts → src/gateway/routes.ts',
        'core-imports-no-adapter: src/agent/loop.ts → adapters/web/console.ts',
        'core-imports-no-platform-sdk: src/agent/loop.ts → grammy',
        'core-imports-no-platform-sdk: src/gateway/routes.ts → discord.js',
        'core-is-neutral: src/core/types.ts → src/gateway/routes.ts',
        'no-cycles: src/memory/one.ts → src/memory/two.ts',
        'only-discord-adapter-imports-its-sdk: adapters/telegram/bot.ts → discord.js',
        'only-feishu-adapter-imports-its-sdk: adapters/discord/bot.ts → @larksuiteoapi/node-sdk',
        'no-prisma-at-run-time: bin/tool.mjs → @prisma/adapter-pg',
        'no-prisma-at-run-time: src/gateway/routes.ts → @prisma/client',
        'no-prisma-at-run-time: src/store/db.ts → @prisma/client',
        'only-telegram-adapter-imports-its-sdk: adapters/web/console.ts → grammy',
      ].sort(),
    );
  });
});
