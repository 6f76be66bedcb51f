// The long connection after a network cut: the real SDK reconnects by itself, an event pushed
// while it was away arrives once it is back, and an event whose ack was lost in the cut (Feishu
// pushes it again) is answered once.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

describe('feishu (ws): a network cut', () => {
  it('reconnects without losing or doubling events', { timeout: 60_000 }, async () => {
    const { fs, h, log } = await startFeishu('ws');
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    h.model.enqueue({ text: 'before the cut' }, { text: 'while away' }, { text: 'cut mid-delivery' });

    await fs.push(fs.messageEvent(alice, dm, 'one').event);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'before the cut'), 'the first answer');
    await settled(h.store, `feishu:${dm.id}`);
    expect(fs.wsConnections).toBe(1);

    // Cut, then push while the client is away: the push waits for the reconnect.
    fs.cutConnection();
    const away = await fs.push(fs.messageEvent(alice, dm, 'two').event);
    expect(away.status).toBe(200);
    expect(fs.wsConnections).toBe(2);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'while away'), 'the answer to what arrived while away', 20_000);
    await settled(h.store, `feishu:${dm.id}`);

    // The connection drops right after a frame went out: its ack never arrives, Feishu pushes the
    // same event again on the new connection.
    fs.cutAfterNextFrame = true;
    const third = fs.messageEvent(alice, dm, 'three');
    const redelivered = await fs.push(third.event);
    expect(redelivered.status).toBe(200);
    expect(fs.deliveries.filter((d) => d.eventId === third.event.header.event_id).length).toBeGreaterThanOrEqual(2);
    expect(fs.wsConnections).toBe(3);
    await waitFor(() => fs.botMessages(dm).some((m) => text(m) === 'cut mid-delivery'), 'the third answer', 20_000);
    await settled(h.store, `feishu:${dm.id}`);

    expect(h.model.requests).toHaveLength(3);
    expect(fs.botMessages(dm).map(text)).toEqual(['before the cut', 'while away', 'cut mid-delivery']);
    expect(log.text()).toContain('Feishu long connection restored');
    expect(log.text()).not.toContain(fs.appSecret);
  });
});
