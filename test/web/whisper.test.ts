// The console's interaction reply handle, over real HTTP and event streams: a button press is
// answered at the ack (the core's slow part goes on afterwards), and a whisper after the ack
// reaches only the streams of the browser that pressed, not the other people in the room.
import { request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebAdapter } from '../../adapters/web/adapter.ts';
import { webChannel } from '../../adapters/web/index.ts';
import type { Action, InboundSink } from '../../src/core/types.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { tempDir, waitFor } from '../helpers/harness.ts';
import { ConsoleClient } from './client.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function startWeb(onAction: (action: Action) => Promise<void>) {
  const web = await webChannel.fromEnv({ env: {}, log: silentLogger, botName: 'Parley', dataDir: tempDir('parley-web-') });
  if (!(web instanceof WebAdapter)) throw new Error('the web channel did not start');
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['web'], phase: () => 'started' },
  });
  web.routes(host);
  await host.listen();
  const sink: InboundSink = { onMessage: async () => {}, onAction };
  await web.start(sink);
  cleanups.push(
    () => host.close(),
    () => web.stop(),
  );
  return { web, base: web.url };
}

/** A raw event stream of one browser, collecting its frames as text. */
function openStream(base: string, cookie: string): Promise<{ received: () => string }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(`${base}/api/events?room=ops`, { agent: false, headers: { cookie } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => {});
      resolve({ received: () => text });
    });
    req.on('error', reject);
    cleanups.push(() => void req.destroy());
    req.end();
  });
}

describe('web console: answering one person', () => {
  it('answers a press at the ack and whispers after it to the presser alone', async () => {
    let finishSlowPart!: () => void;
    const slowPart = new Promise<void>((resolve) => (finishSlowPart = resolve));
    const order: string[] = [];
    const { web, base } = await startWeb(async (action) => {
      await action.reply.ack('Noted.');
      order.push('acked');
      await slowPart;
      await action.reply.whisper('Only you can see this.');
      order.push('whispered');
    });
    const alice = new ConsoleClient(base);
    const bob = new ConsoleClient(base);
    await alice.id();
    await bob.id();
    const aliceStream = await openStream(base, alice.cookieHeader);
    const bobStream = await openStream(base, bob.cookieHeader);
    const prompt = await web.send(
      { channel: 'web', chatId: 'room-ops', chatType: 'group' },
      { text: 'Proceed?', buttons: [[{ label: 'Yes', payload: 'demo:yes' }]] },
    );
    await waitFor(
      () => aliceStream.received().includes('Proceed?') && bobStream.received().includes('Proceed?'),
      'both streams to show the prompt',
    );

    // The answer comes while the handler is still busy after its ack.
    const response = await alice.post('/api/actions', { name: 'Alice', room: 'ops', messageId: prompt.messageId, payload: 'demo:yes' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ toast: 'Noted.' });
    expect(order).toEqual(['acked']);

    finishSlowPart();
    await waitFor(() => aliceStream.received().includes('event: whisper'), "the whisper on the presser's stream");
    expect(aliceStream.received()).toContain('data: {"text":"Only you can see this."}');
    // Something everyone sees, sent after the whisper: once Bob has it, he would have had the whisper too.
    await web.send({ channel: 'web', chatId: 'room-ops', chatType: 'group' }, { text: 'Done for everyone.' });
    await waitFor(() => bobStream.received().includes('Done for everyone.'), "the later message on Bob's stream");
    expect(bobStream.received()).not.toContain('whisper');
    expect(bobStream.received()).not.toContain('Only you can see this.');
    expect(order).toEqual(['acked', 'whispered']);
  });
});
