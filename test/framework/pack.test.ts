// Parley as a dependency, from outside the repository: `npm pack`, the tarball installed into a
// fresh project in the temporary folder (`npm install --prefer-offline`: from npm's cache, which
// CI's `npm ci` has just filled), the example bot's parley.config.ts copied in, and
// `npx parley start` run there as a child process against the fake Bot API and the fake model.
// Packing and installing happen once for the file (about 20 s, most of it npm copying files).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/model-server.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const ROOT = process.cwd();
const EXAMPLE = join(ROOT, 'examples', 'weather-bot');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let base: string;
let project: string;

/** The parent's environment without any Parley, model or channel settings of its own. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TELEGRAM_|OPENAI_|PARLEY_|DATABASE_URL$|DISCORD_|FEISHU_|LARK_|npm_)/.test(key)) env[key] = value;
  }
  return env;
}

beforeAll(() => {
  base = tempDir('parley-pack-');
  // dist/ is current (the global setup built it): pack it as it is.
  const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', base], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  project = join(base, 'bot');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-bot', private: true, type: 'module', dependencies: { parley: `file:../${tarball}` } }, null, 2),
  );
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  for (const file of ['parley.config.ts', 'forecasts.ts', 'tsconfig.json']) copyFileSync(join(EXAMPLE, file), join(project, file));
}, 240_000);

// About 15,000 files: removing them takes long on a busy disk.
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
}, 180_000);

describe('the installed package', () => {
  it('ships dist/ built with the declarations and no sources, and has no install script to run', () => {
    const installed = join(project, 'node_modules', 'parley');
    expect(existsSync(join(installed, 'dist', 'src', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'types', 'src', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json']);
  });

  it('type-checks the example from outside; a wrong type in a tool is a TypeScript error', () => {
    // The example as it is: no error.
    execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    writeFileSync(
      join(project, 'wrong.ts'),
      [
        "import { defineTool, z } from 'parley';",
        'export const wrong = defineTool({',
        "  name: 'wrong',",
        "  description: 'A tool whose code does not match its parameters',",
        '  parameters: z.object({ city: z.string() }),',
        '  execute({ city }) {',
        '    const degrees: number = city;',
        '    return String(degrees);',
        '  },',
        '});',
        '',
      ].join('\n'),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    } finally {
      rmSync(join(project, 'wrong.ts'));
    }
    expect(output).toMatch(/wrong\.ts\(7,11\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});

interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

const running: Running[] = [];
afterEach(() => {
  for (const bot of running.splice(0)) {
    try {
      // The group: parley too, should npx have gone already.
      process.kill(-bot.child.pid!, 'SIGKILL');
    } catch {
      // Every process of the group has ended.
    }
  }
});

/** `npx parley start` in `cwd`, as its own process group (npx runs parley as its child). */
function npxParleyStart(cwd: string, env: Record<string, string>): Running {
  const child = spawn('npx', ['--offline', 'parley', 'start'], {
    cwd,
    detached: true,
    env: { ...cleanEnv(), PARLEY_WEB: 'off', PARLEY_HTTP_PORT: '0', PARLEY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => setImmediate(() => resolve(code))));
  const bot = { child, stdout: () => stdout, stderr: () => stderr, exited };
  running.push(bot);
  return bot;
}

function transcript(request: RecordedRequest): string {
  return JSON.stringify(request.body.messages);
}

describe('npx parley start in a project', () => {
  it('serves the example: its command, its read-only tool, its tool approved by a button, its hooks, its fallback model', async () => {
    const tg = await FakeTelegram.start();
    // The example's two models: main, and backup when main fails.
    const model = await FakeModelServer.start();
    const backup = await FakeModelServer.start();
    try {
      writeFileSync(
        join(project, '.env'),
        `PARLEY_BOT_NAME=Weather desk\nMAIN_MODEL_URL=${model.url}\nMAIN_MODEL=fake-model\nBACKUP_MODEL_URL=${backup.url}\nBACKUP_MODEL=backup-model\n`,
      );
      const bot = npxParleyStart(project, {
        TELEGRAM_BOT_TOKEN: tg.token,
        TELEGRAM_API_ROOT: tg.apiRoot,
        MAIN_MODEL_KEY: 'test-key',
      });
      await waitFor(() => bot.stdout().includes('Press Ctrl-C to stop.') || bot.child.exitCode !== null, 'the ready block', 60_000);
      // .env, parley.config.ts and the data folder: all from the project's folder.
      expect(bot.stdout(), bot.stderr()).toContain('Weather desk (Parley) is running.');
      expect(bot.stdout()).toMatch(/Project\s+parley\.config\.ts: 2 tool\(s\), 1 plugin\(s\)/);
      expect(existsSync(join(project, 'data', 'parley.db'))).toBe(true);
      expect(bot.stdout()).toContain(`Model     main (default): fake-model at ${model.url}: `);
      expect(bot.stdout()).toContain(`            backup (fallback): backup-model at ${backup.url}: `);
      // The plugin's command is in Telegram's menu, after Parley's own.
      expect(tg.commands?.map((c) => c.command)).toEqual([
        'start',
        'help',
        'stop',
        'reset',
        'approve',
        'deny',
        'revoke',
        'model',
        'weather',
      ]);

      const alice = tg.user('Alice');
      const dm = tg.privateChat(alice);
      // The command, answered by the plugin without the model.
      tg.say(alice, dm, '/weather Lisbon');
      await waitFor(() => tg.botMessages(dm).find((m) => m.message.text === 'Lisbon: 17 °C, sunny'), 'the /weather answer', 15_000);
      expect(model.requests).toHaveLength(0);

      // A turn: the read-only tool and a blocked built-in in one round, then the tool that needs approval.
      model.enqueue(
        {
          toolCalls: [
            { id: 'w1', name: 'get_weather', arguments: { city: 'Oslo' } },
            { id: 'h1', name: 'http_request', arguments: { url: 'https://example.com/' } },
          ],
        },
        { toolCalls: [{ id: 'a1', name: 'set_frost_alert', arguments: { city: 'Oslo', belowCelsius: 0 } }] },
        { text: 'Oslo is at -3 °C; I will warn you below 0 °C.' },
      );
      tg.say(alice, dm, 'How cold is Oslo? Warn me below zero.');
      const prompt = await waitFor(
        () => tg.botMessages(dm).find((m) => m.message.reply_markup?.inline_keyboard.flat().some((b) => b.text === 'Approve')),
        'the approval prompt',
        20_000,
      );
      expect(prompt.message.text).toContain('Set a frost alert for Oslo below 0 °C');
      // The plugin's context section is in the model's context.
      expect(transcript(model.requests[0]!)).toContain('Weather desk: temperatures are in °C');
      // The read-only tool ran, and the plugin's afterTool marked its result; its beforeTool blocked the web request.
      const tools = model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
      expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
        ['w1', 'Oslo: -3 °C, snow (source: weather desk)'],
        ['h1', 'Not run: this bot does not fetch web pages'],
      ]);
      expect(model.requests).toHaveLength(2);

      tg.click(alice, dm, prompt.message.message_id, 'Approve');
      await waitFor(
        () => tg.botMessages(dm).find((m) => m.message.text?.includes('I will warn you below 0 °C')),
        'the answer after the approval',
        20_000,
      );
      const last = model.requests.at(-1)!;
      expect(last.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'a1')?.content).toBe(
        'Frost alert set for Oslo below 0 °C.',
      );
      // The approved tool kept its fact in the session's memory, which the model sees from then on.
      expect(last.body.messages[0]!.content).toContain('frost_alert_oslo: below 0 °C');
      // The system prompt's base is the example's template, rendered for this chat.
      expect(last.body.messages[0]!.content).toMatch(
        /^You are Weather desk, a weather assistant\.\nYou are in a direct chat\.\nGive temperatures in °C\./,
      );
      expect(last.headers.authorization).toBe('Bearer test-key');
      expect(backup.requests).toHaveLength(0);

      // Main is busy for longer than its retry budget (30 s): the backup answers this one.
      model.enqueue({ status: 503, retryAfter: '120', body: { error: { message: 'The server is overloaded' } } });
      backup.enqueue({ text: 'From the backup: Lisbon is mild today.' });
      tg.say(alice, dm, 'And Lisbon?');
      await waitFor(
        () => tg.botMessages(dm).find((m) => m.message.text === 'From the backup: Lisbon is mild today.'),
        "the backup model's answer",
        20_000,
      );
      expect(backup.requests.map((r) => r.body.model)).toEqual(['backup-model']);
      expect(model.requests.at(-1)!.answer?.status).toBe(503);

      // Ctrl-C in a terminal: SIGINT to the whole process group, npx and parley.
      process.kill(-bot.child.pid!, 'SIGINT');
      await bot.exited;
      await waitFor(() => bot.stdout().includes('Stopped.'), 'the clean stop', 15_000);
    } finally {
      await model.close();
      await backup.close();
      await tg.close();
    }
  }, 120_000);

  it('stops with the file and line when parley.config.ts is wrong', async () => {
    const broken = join(project, 'broken');
    mkdirSync(broken, { recursive: true });
    const cases: [string, RegExp][] = [
      [
        "import { defineConfig } from 'parley';\nconst limit: number = ;\nexport default defineConfig({});\n",
        /parley\.config\.ts:2: SyntaxError: Expression expected\nconst limit: number = ;\n {22}\^/,
      ],
      [
        "import { defineConfig } from 'parley';\nconst x: string = 'a';\nthrow new Error('no API key for the weather service');\nexport default defineConfig({});\n",
        /parley\.config\.ts:3:7: Error: no API key for the weather service/,
      ],
      [
        "import { defineConfig } from 'parley';\nexport default defineConfig({ tools: [{ name: 'x' }] } as never);\n",
        /parley\.config\.ts: the configuration is not valid:\n {2}- tools\.0: not a tool: make each entry with defineTool/,
      ],
    ];
    for (const [source, expected] of cases) {
      writeFileSync(join(broken, 'parley.config.ts'), source);
      const bot = npxParleyStart(broken, {});
      expect(await bot.exited).toBe(1);
      expect(bot.stderr()).toMatch(expected);
      expect(bot.stdout()).toBe('');
      expect(existsSync(join(broken, 'data'))).toBe(false);
    }
    // A tool named like a built-in one: found when the tools are registered.
    writeFileSync(
      join(broken, 'parley.config.ts'),
      "import { defineConfig, defineTool, z } from 'parley';\nconst remember = defineTool({ name: 'remember', description: 'mine', parameters: z.object({}), execute: () => 'ok' });\nexport default defineConfig({ tools: [remember] });\n",
    );
    const clash = npxParleyStart(broken, {});
    expect(await clash.exited).toBe(1);
    expect(clash.stderr()).toBe('parley: parley.config.ts: A tool named "remember" is already registered\n');
  }, 60_000);
});
