import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/core/delivery.ts';
import { ALICE, BOB, CAROL } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';
import { raceInWorkers } from '../helpers/race.ts';
import { expectNoButtons, ping, promptsIn, runs, transfer, transferCall, waitForStatus } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

const DM = 'memory:dm-u-alice';

describe('approvals: deciding', () => {
  it('the requester approves: the tool runs and the turn continues to a final answer', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(10, 'Bob')] }, { text: 'Sent 10 EUR to Bob.' });
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    expect(prompt!.text).toContain('Alice asked me to send 10 EUR to Bob');
    expect(prompt!.text).toContain('"amount": 10');
    expect(prompt!.buttons.flat().map((b) => b.label)).toEqual(['Approve', 'Deny', 'Always allow here']);
    for (const button of prompt!.buttons.flat()) expect(Buffer.byteLength(button.payload)).toBeLessThanOrEqual(64);
    expect(runs).toEqual([]);

    const toast = await h.adapter.click(prompt!.id, 'Approve', ALICE);
    expect(toast).toBe('Approved.');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    expect(runs).toEqual(['transfer 10 Bob']);
    expect(h.adapter.lastBotMessage()!.text).toBe('Sent 10 EUR to Bob.');
    const updated = h.adapter.messages.get(prompt!.id)!;
    expect(updated.text).toMatch(/^✅ Approved by Alice at \d\d:\d\d UTC\./);
    expectNoButtons(updated);
    const audit = await h.store.audit.list();
    expect(audit.map((a) => `${a.action}:${a.outcome}`)).toEqual(['approve:approved']);
    expect(audit[0]).toMatchObject({ toolName: 'transfer_money', actor: { id: 'memory:u-alice' } });
  });

  it('a rate-limited update of the prompt is retried: the prompt shows the decision without buttons', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(10, 'Bob')] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    const edit = h.adapter.edit.bind(h.adapter);
    let refused = 0;
    h.adapter.edit = async (ref, message) => {
      if (ref.messageId === prompt!.id && refused < 2) {
        refused++;
        throw new DeliveryError('Too Many Requests: retry after 0.1', 'rate_limited', { retryAfterMs: 100 });
      }
      return edit(ref, message);
    };
    expect(await h.adapter.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(h.store, DM);
    expect(refused).toBe(2);
    const updated = h.adapter.messages.get(prompt!.id)!;
    expect(updated.text).toMatch(/^✅ Approved by Alice/);
    expectNoButtons(updated);
  });

  it('deny: the model receives the denial and answers accordingly', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, (request) => ({
      text: request.body.messages.at(-1)!.content?.includes('Alice denied this call') ? 'OK, I did not send anything.' : 'unexpected',
    }));
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    expect(await h.adapter.click(prompt!.id, 'Deny', ALICE)).toBe('Denied.');
    await settled(h.store, DM);
    expect(runs).toEqual([]);
    expect(h.adapter.lastBotMessage()!.text).toBe('OK, I did not send anything.');
    expect(h.adapter.messages.get(prompt!.id)!.text).toMatch(/^❌ Denied by Alice/);
  });

  it('refuses a stranger without changing anything; an admin may decide', async () => {
    const h = await createHarness({ tools: [transfer], env: { PARLEY_ADMINS: 'memory:u-carol' } });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Done.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', mention: true });
    const [prompt] = await promptsIn(h.adapter, 1, 'group-1');

    const refusal = await h.adapter.click(prompt!.id, 'Approve', BOB);
    expect(refusal).toBe('Only Alice (who asked) or an admin can decide this.');
    const [approval] = await h.store.approvals.list();
    expect(approval!.status).toBe('pending');
    expect(h.adapter.messages.get(prompt!.id)!.buttons.flat()).toHaveLength(3);
    expect(runs).toEqual([]);

    expect(await h.adapter.click(prompt!.id, 'Approve', CAROL)).toBe('Approved.');
    await settled(h.store, 'memory:group-1');
    expect(runs).toEqual(['transfer 10 Bob']);
    expect(h.adapter.messages.get(prompt!.id)!.text).toMatch(/Approved by Carol/);
    const audit = await h.store.audit.list();
    expect(audit.map((a) => `${a.actor.displayName}:${a.outcome}`).reverse()).toEqual(['Bob:refused', 'Carol:approved']);
  });

  it('a double click makes one decision and tells the second click why', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Done.' });
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    const message = h.adapter.messages.get(prompt!.id)!;
    const payload = message.buttons[0]![0]!.payload;
    const [first, second] = await Promise.all([h.adapter.press(message, payload, ALICE), h.adapter.press(message, payload, ALICE)]);
    expect([first, second].sort()).toEqual(['Already approved by Alice.', 'Approved.']);
    await settled(h.store, DM);
    expect(runs).toEqual(['transfer 10 Bob']);
    // A late click on the now-decided request changes nothing either.
    expect(await h.adapter.press(message, payload, ALICE)).toBe('Already approved by Alice.');
  });

  it('two processes deciding the same approval at once: exactly one wins, the other is told', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] });
    await h.adapter.say('send Bob 10 euros');
    await promptsIn(h.adapter);
    await waitForStatus(h, DM, 'awaiting_approval');
    const [approval] = await h.store.approvals.list();
    const actor = { id: 'u-alice', displayName: 'Alice', channel: 'memory' };
    const results = await raceInWorkers<{ ok: boolean; message: string }>(h.dbFile, [
      { op: 'decide', token: approval!.token, actor, choice: 'approve' },
      { op: 'decide', token: approval!.token, actor, choice: 'deny' },
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const loser = results.find((r) => !r.ok)!;
    expect(loser.message).toMatch(/^Already (approved|denied) by Alice\.$/);
    const decided = (await h.store.approvals.get(approval!.id))!;
    expect(['approved', 'denied']).toContain(decided.status);
  });

  it('refuses forged and unknown tokens without crashing', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Done.' });
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    const message = h.adapter.messages.get(prompt!.id)!;
    expect(await h.adapter.press(message, 'ap:AAAAAAAAAAAAAAAA:a', ALICE)).toBe('This approval request does not exist.');
    expect(await h.adapter.press(message, 'ap:../../etc:a', ALICE)).toBe('This button is no longer active.');
    expect(await h.adapter.press(message, 'something-else', ALICE)).toBe('This button is no longer active.');
    const [approval] = await h.store.approvals.list();
    expect(approval!.status).toBe('pending');
    // The real button still works afterwards.
    expect(await h.adapter.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(h.store, DM);
    expect(runs).toEqual(['transfer 10 Bob']);
  });

  it('one safe and two gated calls: the safe one runs at once, two prompts, resume after both, results in call order', async () => {
    const h = await createHarness({ tools: [transfer, ping] });
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'c1', ...transferCall(5, 'Bob') },
          { id: 'c2', name: 'ping', arguments: {} },
          { id: 'c3', ...transferCall(7, 'Carol') },
        ],
      },
      { text: 'All settled.' },
    );
    await h.adapter.say('pay Bob 5 and Carol 7, and ping');
    const prompts = await promptsIn(h.adapter, 2);
    expect(runs).toEqual(['ping']);
    expect(prompts[0]!.text).toContain('send 5 EUR to Bob');
    expect(prompts[1]!.text).toContain('send 7 EUR to Carol');

    await h.adapter.click(prompts[1]!.id, 'Approve', ALICE);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.model.requests).toHaveLength(1); // still waiting for the other decision
    await waitForStatus(h, DM, 'awaiting_approval');

    await h.adapter.click(prompts[0]!.id, 'Deny', ALICE);
    await settled(h.store, DM);
    expect(runs).toEqual(['ping', 'transfer 7 Carol']);
    const results = h.model.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(results.map((m) => m.content)).toEqual([
      'Not run: Alice denied this call. Do not retry it unless the user asks.',
      'pong',
      'sent 7 EUR to Carol',
    ]);
    expect(h.adapter.lastBotMessage()!.text).toBe('All settled.');
  });
});
