// Signed webhook requests (FEISHU_ENCRYPT_KEY) are taken only within 5 minutes either way of their
// signed timestamp: a captured request cannot be replayed later. Within the window a replay is the
// same event id and is answered once, for messages and card clicks alike.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, deployTool, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

const env = { FEISHU_ENCRYPT_KEY: 'fake-encrypt-key-42' };
const MINUTE = 60_000;

describe('feishu webhook: freshness of signed requests', () => {
  it('refuses correctly signed requests stamped in 2020 or 10 minutes ahead (one log line); answers a fresh one once', async () => {
    const { fs, h, log } = await startFeishu('webhook', { env });
    h.model.enqueue({ text: 'Fresh and answered.' });
    const dm = fs.p2p();
    const { event } = fs.messageEvent(fs.user('Alice'), dm, 'hello');

    const old = fs.envelope(event, Date.UTC(2020, 5, 1));
    expect((await fs.postRaw(old.body, old.headers)).status).toBe(401);
    const ahead = fs.envelope(event, Date.now() + 10 * MINUTE);
    expect((await fs.postRaw(ahead.body, ahead.headers)).status).toBe(401);
    expect(await h.store.sessions.getByKey(`feishu:${dm.id}`)).toBeFalsy();
    expect(h.model.requests).toHaveLength(0);
    const staleLines = log.lines.filter((l) => l.level === 'warn' && l.msg?.includes('refused a signed request stamped'));
    expect(staleLines).toHaveLength(1);
    expect(staleLines[0]!.msg).toContain('2020-06-01T00:00:00.000Z');

    // The refusals left no trace: the same event signed now is taken, and that request replayed is not taken again.
    const fresh = fs.envelope(event);
    expect((await fs.postRaw(fresh.body, fresh.headers)).status).toBe(200);
    expect((await fs.postRaw(fresh.body, fresh.headers)).status).toBe(200);
    await waitFor(() => fs.botMessages(dm)[0] && text(fs.botMessages(dm)[0]!) === 'Fresh and answered.', 'the answer');
    await settled(h.store, `feishu:${dm.id}`);
    expect(fs.botMessages(dm)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(log.text()).not.toContain('without FEISHU_ENCRYPT_KEY');
  });

  it('refuses a click signed 10 minutes ago; a click replayed within the window decides once', async () => {
    const deployed: string[] = [];
    const { fs, h } = await startFeishu('webhook', { env, tools: [deployTool(deployed)] });
    h.model.enqueue(
      { text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'Deployed api.' },
    );
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    await fs.push(fs.messageEvent(alice, dm, 'deploy the api please').event);
    const prompt = await waitFor(() => fs.botMessages(dm).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the approval card');
    const click = fs.clickEvent(alice, prompt.id, 'Approve');

    const stale = fs.envelope(click, Date.now() - 10 * MINUTE);
    expect((await fs.postRaw(stale.body, stale.headers)).status).toBe(401);
    expect(await h.store.approvals.list({ status: 'pending', limit: 10 })).toHaveLength(1);

    const captured = fs.envelope(click);
    const first = await fs.postRaw(captured.body, captured.headers);
    const replay = await fs.postRaw(captured.body, captured.headers);
    expect(first).toMatchObject({ status: 200, body: { toast: { content: 'Approved.' } } });
    expect(replay).toEqual(first);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'Deployed api.'), 'the answer after the tool');
    await settled(h.store, `feishu:${dm.id}`);
    expect(deployed).toEqual(['api']);
    expect(await h.store.approvals.list({ status: 'approved', limit: 10 })).toHaveLength(1);
  }, 30_000);
});
