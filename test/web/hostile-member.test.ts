// A hostile member of a group room, against the real `npm start` (bin/start.mjs as a child process)
// over real HTTP: 200 mentions in a burst reach the model at most PARLEY_RATE_PER_MINUTE times and
// get one "slow down" reply; a Markdown display name stays text in the bot's approval prompt; the
// requester's own approval button copied into another room decides nothing.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { ConsoleClient } from './client.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const PHISHING_NAME = '[Approve here](https://evil.example/x)';

interface Entry {
  kind: string;
  id: string;
  author: { name: string };
  text: string;
  html?: string;
  buttons: { label: string; payload: string }[][];
}

let model: FakeModelServer;
let base = '';
let stopBot: () => Promise<void>;

beforeAll(async () => {
  model = await FakeModelServer.start();
  model.setFallback((request) => {
    const last = request.body.messages.at(-1)!;
    if (last.role === 'user' && last.content?.includes('save the page')) {
      const page = { slug: 'ops/runbook', title: 'Runbook', summary: 'How we deploy.', content: 'Deploy on Tuesdays.', tags: [] };
      return { toolCalls: [{ name: 'write_knowledge_page', arguments: page }] };
    }
    return { text: 'ok', delayMs: 2 };
  });
  const cwd = tempDir('parley-hostile-');
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'start.mjs')], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      PARLEY_HTTP_PORT: '0',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      PARLEY_RATE_PER_MINUTE: '10',
      PARLEY_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  stopBot = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  base = await waitFor(() => /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], `the console URL in:\n${out}`, 20_000);
});

afterAll(async () => {
  await stopBot?.();
  await model?.close();
});

async function transcript(client: ConsoleClient, room: string): Promise<Entry[]> {
  return (await client.json<{ entries: Entry[] }>(`/api/chat?room=${room}`)).entries;
}

describe('a hostile group member against npm start', () => {
  it('200 mentions in a burst: at most 10 reach the model, one "slow down" reply', async () => {
    const mallory = new ConsoleClient(base);
    await mallory.get('/');
    // Counts are per clock minute: the burst is started well inside one, so that it meets one window.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const posted = await Promise.all(
      Array.from({ length: 200 }, (_, i) => mallory.post('/api/messages', { room: 'ops', name: 'Mallory', text: `@Parley spam ${i}` })),
    );
    expect(posted.every((r) => r.status === 202)).toBe(true);
    const slowDown = await waitFor(async () => {
      const entries = (await transcript(mallory, 'ops')).filter((e) => e.kind === 'message' && e.text.startsWith('Please slow down'));
      return entries.length > 0 ? entries : undefined;
    }, 'the slow-down reply');
    // Whatever was let through is answered; then nothing more happens.
    let seen = -1;
    await waitFor(async () => {
      const now = model.requests.length;
      const stable = now === seen;
      seen = now;
      await new Promise((r) => setTimeout(r, 300));
      return stable && now > 0;
    }, 'the model requests to stop');
    const asked = new Set(model.requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'user').map((m) => m.content)));
    expect(asked.size).toBeLessThanOrEqual(10);
    expect(model.requests.length).toBeLessThanOrEqual(10);
    expect(slowDown).toHaveLength(1);
    expect((await transcript(mallory, 'ops')).filter((e) => e.text?.startsWith('Please slow down'))).toHaveLength(1);
  });

  it('a Markdown display name stays text in the approval prompt, and a copied button decides nothing in another room', async () => {
    const bob = new ConsoleClient(base);
    await bob.get('/');
    expect((await bob.post('/api/messages', { room: 'deploys', name: PHISHING_NAME, text: '@Parley save the page' })).status).toBe(202);
    const prompt = await waitFor(
      async () => (await transcript(bob, 'deploys')).find((e) => e.buttons?.flat().length),
      'the approval prompt',
    );
    expect(prompt.text).toContain('Approval needed');
    // The name is shown as the characters it is: no link labelled "Approve here". (A bare address in
    // a name is shown as itself, and the console, like the platforms' own clients, links addresses.)
    expect(prompt.html).toContain('[Approve here](');
    for (const [, href, label] of prompt.html!.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)) expect(label).toBe(href);
    const approve = prompt.buttons.flat().find((b) => b.label === 'Approve')!;

    // The requester presses a copy of the button in another room: refused, nothing changes.
    await bob.get('/?room=elsewhere');
    const copied = await bob.post('/api/actions', {
      room: 'elsewhere',
      name: PHISHING_NAME,
      messageId: prompt.id,
      payload: approve.payload,
    });
    expect(copied.status).toBeLessThan(500);
    await new Promise((r) => setTimeout(r, 300));
    const still = (await transcript(bob, 'deploys')).find((e) => e.id === prompt.id)!;
    expect(still.buttons.flat().map((b) => b.label)).toContain('Approve');
    expect(still.text).toContain('Approval needed');
  });
});
