// The console's transcript is kept per process; after a restart a page that reloads is shown the
// conversation the core stored (user and bot messages of the current epoch), and an approval
// prompt still pending keeps working buttons: clicking one decides it and resumes the turn.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebAdapter } from '../../adapters/web/adapter.ts';
import { webConfigFromEnv } from '../../adapters/web/index.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { runs, transfer, transferCall } from '../approvals/helpers.ts';
import { closeAll, createHarness, settled, tempDir, waitFor } from '../helpers/harness.ts';

const hosts: HttpHost[] = [];
afterEach(async () => {
  while (hosts.length) await hosts.pop()!.close();
  await closeAll();
});

async function startWeb(dataDir: string) {
  const web = new WebAdapter({ config: webConfigFromEnv({})!, botName: 'Parley', log: silentLogger, dataDir });
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['web'], phase: () => 'started' },
  });
  hosts.push(host);
  web.routes(host);
  await host.listen();
  return web;
}

const ALICE = { id: 'u-alice-0001', name: 'Alice' };
const DM = { chatId: `dm-${ALICE.id}`, chatType: 'direct' as const };
const texts = async (web: WebAdapter) =>
  (await web.history(DM, ALICE.id)).flatMap((e) => (e.kind === 'message' ? [`${e.author.isBot ? 'bot' : e.author.name}: ${e.text}`] : []));

describe('web console: the transcript after a restart', () => {
  it('shows the stored conversation, and a pending approval prompt whose buttons still decide it', async () => {
    const dataDir = tempDir('parley-web-');
    const dbFile = join(dataDir, 'parley.db');
    const model = await FakeModelServer.start();

    const first = await startWeb(dataDir);
    const h1 = await createHarness({ adapters: [first], dbFile, model, tools: [transfer] });
    model.enqueue({ text: 'Hello Alice, nice to meet you.' });
    await first.post(DM, ALICE, 'hello there');
    await settled(h1.store, `web:${DM.chatId}`);
    model.enqueue({ toolCalls: [transferCall(25, 'Bob')] });
    await first.post(DM, ALICE, 'send Bob 25 EUR');
    await waitFor(
      async () => (await first.history(DM, ALICE.id)).some((e) => e.kind === 'message' && e.buttons.length > 0),
      'the approval prompt',
    );
    await h1.stop();
    for (const host of hosts.splice(0)) await host.close();

    // A new process: an empty in-memory transcript over the same database.
    const second = await startWeb(dataDir);
    const h2 = await createHarness({ adapters: [second], dbFile, model, tools: [transfer] });
    const shown = await texts(second);
    expect(shown.slice(0, 3)).toEqual(['Alice: hello there', 'bot: Hello Alice, nice to meet you.', 'Alice: send Bob 25 EUR']);
    const prompt = (await second.history(DM, ALICE.id)).find((e) => e.kind === 'message' && e.buttons.length > 0);
    expect(prompt?.kind).toBe('message');
    if (prompt?.kind !== 'message') return;
    expect(prompt.text).toContain('transfer_money');

    const before = runs.length;
    model.enqueue({ text: 'Done: Bob has his 25 EUR.' });
    const approve = prompt.buttons.flat().find((b) => b.label.startsWith('Approve'))!;
    const toast = await second.press(DM, ALICE, prompt.id, approve.payload);
    expect(toast).toMatch(/Approved/);
    await waitFor(async () => (await texts(second)).includes('bot: Done: Bob has his 25 EUR.'), 'the resumed answer');
    expect(runs.slice(before)).toEqual(['transfer 25 Bob']);
    // The decision edited the seeded prompt (same message id): its buttons are gone.
    await waitFor(async () => {
      const again = (await second.history(DM, ALICE.id)).find((e) => e.id === prompt.id);
      return again?.kind === 'message' && again.buttons.length === 0;
    }, 'the prompt without buttons');
    await h2.close();
    await model.close();
  });
});
