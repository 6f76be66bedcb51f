// kill -9 while an approved http_request is in flight, then start again: the request must not be
// sent a second time (a person approved one action, not two). The real entry point runs as a child
// process against the fake Bot API and the fake model; the target is a local server that counts
// requests and never answers.
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/agent/recovery.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { FakeTelegram } from '../fakes/telegram/index.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  killAll();
  while (cleanups.length) await cleanups.pop()!();
});

/** Counts requests and never answers them (the side effect happened; the reply never came). */
async function hangingTarget() {
  const seen: string[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    open.add(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/charge`, close };
}

describe('crash during an approved tool call', () => {
  it('kill -9 while an approved POST is in flight: after a restart it is not sent again, the model and the chat are told', async () => {
    const tg = await FakeTelegram.start();
    const model = await FakeModelServer.start();
    const target = await hangingTarget();
    const dir = tempDir('parley-crash-');
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => target.close(),
      () => model.close(),
      () => tg.close(),
    );
    const env = {
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.apiRoot,
      TELEGRAM_EDIT_INTERVAL_PRIVATE: '50ms',
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: `file:${join(dir, 'parley.db')}`,
      // The target is on loopback.
      PARLEY_ALLOW_PRIVATE_HTTP: 'true',
    };
    model.enqueue(
      {
        text: 'I will send the charge.',
        toolCalls: [{ id: 'call_charge', name: 'http_request', arguments: { url: target.url, method: 'POST', body: 'amount=100' } }],
      },
      { text: 'I cannot tell whether the charge went through; please check before I try again.' },
    );

    const first = startParley(env);
    await first.ready();
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    tg.say(alice, dm, 'charge 100 please');
    const prompt = await waitFor(() => tg.botMessages(dm).find((m) => m.message.reply_markup), 'the approval prompt', 15_000);
    tg.click(alice, dm, prompt.message.message_id, 'Approve');
    await waitFor(() => target.seen.length === 1, 'the approved request to reach the target', 15_000);
    await first.kill9();

    const second = startParley(env);
    await second.ready();
    // The final render carries the notice after the answer. (The session lease of the killed
    // process has to lapse first, up to 30 s, unless it is reclaimed at start.)
    const notice = 'I was interrupted while running http_request; it may or may not have taken effect, and I did not run it again.';
    const answer = await waitFor(
      () => tg.botMessages(dm).find((m) => m.message.text?.includes('please check before I try again') && m.message.text.includes(notice)),
      'the answer after the restart',
      60_000,
    );
    // A clean stop sends whatever is still queued, so nothing can arrive after the count.
    expect(await second.stop()).toBe(0);
    expect(target.seen).toEqual(['POST /charge']);
    expect(model.requests).toHaveLength(2);
    const result = model.requests[1]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_charge');
    expect(result?.content).toBe(INTERRUPTED_RESULT);
    expect(answer.message.text).toContain('I cannot tell whether the charge went through');
    const told = tg.botMessages(dm).flatMap((m) => m.message.text?.split(notice).slice(1) ?? []);
    expect(told).toHaveLength(1);
  }, 120_000);
});
