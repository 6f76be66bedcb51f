// Button presses reach the core as Action objects from adapters; the gateway validates them like
// inbound messages before anything acts on them, and answers every press it can.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Action, InteractionReply } from '../../src/core/types.ts';
import { promptsIn, runs, transfer, transferCall } from '../approvals/helpers.ts';
import { closeAll, createHarness } from '../helpers/harness.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

function recordingReply(): InteractionReply & { acks: (string | undefined)[] } {
  const acks: (string | undefined)[] = [];
  return {
    acks,
    async ack(text) {
      acks.push(text);
    },
    async whisper() {},
  };
}

async function pendingApproval() {
  const h = await createHarness({ tools: [transfer] });
  h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Done.' });
  await h.adapter.say('send Bob 10 euros');
  const [prompt] = await promptsIn(h.adapter);
  const approve = prompt!.buttons.flat().find((b) => b.label === 'Approve')!;
  const press = (overrides: Partial<Record<keyof Action, unknown>>) => {
    const reply = recordingReply();
    const action = {
      channel: 'memory',
      chatId: 'dm-u-alice',
      chatType: 'direct',
      messageId: prompt!.id,
      userId: 'u-alice',
      displayName: 'Alice',
      payload: approve.payload,
      reply,
      ...overrides,
    };
    return { reply, done: h.app.gateway.onAction(action as Action) };
  };
  return { h, press, approve };
}

describe('button presses', () => {
  it('a malformed press changes nothing and is answered as inactive', async () => {
    const { h, press } = await pendingApproval();
    for (const overrides of [
      { chatType: 'channel' },
      { userId: '' },
      { chatId: undefined },
      { messageId: 42 },
      { payload: 'x'.repeat(5_000) },
    ]) {
      const { reply, done } = press(overrides);
      await done;
      expect(reply.acks).toEqual(['This button is no longer active.']);
    }
    // No reply handle at all: logged and dropped, nothing thrown at the adapter.
    await expect(press({ reply: undefined }).done).resolves.toBeUndefined();
    const [approval] = await h.store.approvals.list({});
    expect(approval!.status).toBe('pending');
    expect(await h.store.audit.list()).toEqual([]);
  });

  it('a valid press is decided; one the approvals do not know is told the button is no longer active', async () => {
    const { h, press } = await pendingApproval();
    const unknown = press({ payload: 'vote:42' });
    await unknown.done;
    expect(unknown.reply.acks).toEqual(['This button is no longer active.']);
    const valid = press({ displayName: 'Al\u0000ice' });
    await valid.done;
    expect(valid.reply.acks).toEqual(['Approved.']);
    await h.app.approvals.settled();
    expect(runs).toEqual(['transfer 10 Bob']);
    const [approval] = await h.store.approvals.list({});
    expect(approval!.decidedBy).toEqual({ id: 'u-alice', displayName: 'Alice' });
  });
});
