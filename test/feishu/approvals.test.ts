// Approval cards through the real Lark SDK: a stranger is refused with a toast; the requester's
// click is answered (HTTP 200 or the long connection's ack) with a toast within 3 s even while the
// REST API takes 5 s per update (the core acks before it edits); afterwards the card is updated
// through the ordinary PATCH to show the outcome without buttons; the tool runs once.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, deployTool, startFeishu, text, type Mode } from './helpers.ts';

afterEach(closeFeishu);

describe.each<Mode>(['webhook', 'ws'])('feishu (%s): approval cards', (mode) => {
  it("refuses a stranger, decides the requester's click within 3 s under a slow REST API, runs the tool once", async () => {
    const deployed: string[] = [];
    const { fs, h } = await startFeishu(mode, { tools: [deployTool(deployed)] });
    const alice = fs.user('Alice');
    const bob = fs.user('Bob');
    const group = fs.group();
    h.model.enqueue(
      { text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'Deployed api.' },
    );

    await fs.push(fs.messageEvent(alice, group, 'deploy the api please', { mention: [fs.bot] }).event);
    const prompt = await waitFor(() => fs.botMessages(group).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the approval card');
    expect(text(prompt)).toContain('deploy api to production');
    const buttons = FakeFeishu.buttonsOf(prompt);
    expect(buttons.map((b) => b.text.content)).toEqual(['Approve', 'Deny', 'Always allow here']);
    // The value is an opaque token, never the arguments.
    for (const b of buttons) expect(JSON.stringify(b.value)).not.toContain('api');

    const stranger = await fs.push(fs.clickEvent(bob, prompt.id, 'Approve'));
    expect(stranger.status).toBe(200);
    expect(stranger.body?.toast?.content).toMatch(/^Only .* \(who asked\) or an admin can decide this\.$/);
    expect(deployed).toEqual([]);
    expect(FakeFeishu.buttonsOf(prompt)).toHaveLength(3);
    expect(await h.store.approvals.list({ status: 'pending', limit: 10 })).toHaveLength(1);

    fs.slowUpdatesMs = 5_000;
    const approve = fs.clickEvent(alice, prompt.id, 'Approve');
    // As an app without the "obtain user ID" scope receives it.
    expect(approve.event.operator.user_id).toBeNull();
    const click = await fs.push(approve, { attempts: 1 });
    expect(click.status).toBe(200);
    expect(click.ms).toBeLessThan(3_000);
    expect(click.body?.toast?.content).toBe('Approved.');
    expect(click.body?.card).toBeUndefined();
    // The card is updated afterwards, through the (slow) PATCH.
    await waitFor(
      () => FakeFeishu.buttonsOf(prompt).length === 0 && text(prompt).includes('Approved by'),
      'the card without buttons',
      20_000,
    );
    expect(fs.callsTo('PATCH', new RegExp(`/messages/${prompt.id}$`)).length).toBeGreaterThanOrEqual(1);
    fs.slowUpdatesMs = 0;
    await waitFor(() => fs.botMessages(group).some((m) => text(m) === 'Deployed api.'), 'the answer after the tool', 20_000);
    await settled(h.store, `feishu:${group.id}`, 20_000);
    expect(deployed).toEqual(['api']);
    expect(fs.deliveries.filter((d) => d.eventId === click.eventId)).toHaveLength(1);
  }, 40_000);
});
