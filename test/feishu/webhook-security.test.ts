// Webhook mode's gate: URL verification, the verification token, and with an encrypt key the
// decryption and signature. A refused request changes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

describe('feishu webhook: verification', () => {
  it('answers the URL check only with the right token, and refuses events with a wrong token', async () => {
    const { fs, h, log } = await startFeishu('webhook');
    // Token only: requests are not signed; said once at start-up, without the token.
    const unsigned = log.lines.filter((l) => l.level === 'warn' && l.msg?.includes('without FEISHU_ENCRYPT_KEY'));
    expect(unsigned).toHaveLength(1);
    expect(unsigned[0]!.msg).toContain('as any user, admins included');
    expect(log.text()).not.toContain(fs.verificationToken);
    const ok = await fs.postRaw(JSON.stringify({ challenge: 'c-123', token: fs.verificationToken, type: 'url_verification' }));
    expect(ok).toEqual({ status: 200, body: { challenge: 'c-123' } });
    const forgedCheck = await fs.postRaw(JSON.stringify({ challenge: 'c-123', token: 'wrong', type: 'url_verification' }));
    expect(forgedCheck.status).toBe(401);

    const dm = fs.p2p();
    const { event } = fs.messageEvent(fs.user('Mallory'), dm, 'hello');
    const forged = await fs.postRaw(JSON.stringify({ ...event, header: { ...event.header, token: 'wrong-token' } }));
    expect(forged.status).toBe(401);
    expect(await h.store.sessions.getByKey(`feishu:${dm.id}`)).toBeFalsy();
    expect(h.model.requests).toHaveLength(0);
    expect(fs.botMessages(dm)).toHaveLength(0);
  });

  it('accepts encrypted, signed payloads with FEISHU_ENCRYPT_KEY and refuses tampered ones', async () => {
    const { fs, h } = await startFeishu('webhook', { env: { FEISHU_ENCRYPT_KEY: 'fake-encrypt-key-42' } });
    h.model.enqueue({ text: 'Decrypted and answered.' });
    const alice = fs.user('Alice');
    const dm = fs.p2p();

    const tamperedEvent = fs.messageEvent(alice, dm, 'tampered').event;
    const { body, headers } = fs.envelope(tamperedEvent);
    const flipped = body.replace(/"encrypt":"(.)/, (_m, c: string) => `"encrypt":"${c === 'A' ? 'B' : 'A'}`);
    expect((await fs.postRaw(flipped, headers)).status).toBe(401);
    expect((await fs.postRaw(body, { ...headers, 'x-lark-signature': '0'.repeat(64) })).status).toBe(401);
    expect((await fs.postRaw(JSON.stringify(tamperedEvent))).status).toBe(401);
    expect(await h.store.sessions.getByKey(`feishu:${dm.id}`)).toBeFalsy();

    const delivery = await fs.push(fs.messageEvent(alice, dm, 'secret hello').event);
    expect(delivery.status).toBe(200);
    await waitFor(() => fs.botMessages(dm)[0] && text(fs.botMessages(dm)[0]!) === 'Decrypted and answered.', 'the answer');
    await settled(h.store, `feishu:${dm.id}`);
    expect(h.model.requests).toHaveLength(1);
    expect(JSON.stringify(h.model.requests[0]!.body.messages.at(-1))).toContain('secret hello');
  });
});
