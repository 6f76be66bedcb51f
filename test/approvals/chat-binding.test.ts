// An approval counts only in the chat (and thread) of its prompt. A button copied or forwarded into
// another chat carries the same token, and the platform reports the press from where the copy is:
// such a press is refused like a stranger's, audit-logged, and changes nothing (the prompt stays).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../src/core/types.ts';
import { ALICE, CAROL, type FakeMessage } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor, type Harness } from '../helpers/harness.ts';
import { promptsIn, runs, transfer, transferCall } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

const ELSEWHERE = 'This approval request belongs to another chat.';

/** The prompt's buttons, as a copy the bot's channel shows in `chat` (a forwarded card, a copied button). */
async function copyOf(h: Harness, prompt: FakeMessage, chat: Omit<ChatRef, 'channel'>): Promise<FakeMessage> {
  const ref = await h.adapter.send({ channel: h.adapter.id, ...chat }, { text: 'A copied prompt', buttons: prompt.sentButtons });
  return h.adapter.messages.get(ref.messageId)!;
}

/** The prompt as it waits for a decision: its message, and the row once it knows where the prompt is. */
async function pendingPrompt(h: Harness, chatId: string): Promise<FakeMessage> {
  const [prompt] = await promptsIn(h.adapter, 1, chatId);
  await waitFor(async () => (await h.store.approvals.list())[0]?.promptRef, 'the prompt recorded');
  return prompt!;
}

async function expectUndecided(h: Harness, prompt: FakeMessage): Promise<void> {
  expect((await h.store.approvals.list()).map((a) => a.status)).toEqual(['pending']);
  expect(h.adapter.messages.get(prompt.id)!.versions).toHaveLength(1);
  expect(h.adapter.messages.get(prompt.id)!.buttons.flat()).toHaveLength(3);
  expect(runs).toEqual([]);
}

describe('approvals are bound to the chat of their prompt', () => {
  it("the requester's press on a copy in another chat is refused and audited; the prompt itself still works", async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', chatId: 'group-1', mention: true });
    const prompt = await pendingPrompt(h, 'group-1');

    const copy = await copyOf(h, prompt, { chatId: 'group-2', chatType: 'group' });
    expect(await h.adapter.click(copy.id, 'Deny', ALICE)).toBe(ELSEWHERE);
    await h.app.approvals.settled();
    await expectUndecided(h, prompt);
    const audit = await h.store.audit.list();
    expect(audit.map((a) => [a.actor.id, a.action, a.outcome, a.detail])).toEqual([['memory:u-alice', 'deny', 'refused', 'another chat']]);

    expect(await h.adapter.click(prompt.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(h.store, 'memory:group-1');
    expect(runs).toEqual(['transfer 10 Bob']);
    expect(h.adapter.messages.get(prompt.id)!.text).toMatch(/^✅ Approved by Alice/);
  });

  it('in a thread: a copy in another thread or in the main chat is refused; a press on the prompt counts even without a thread', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', chatId: 'group-1', threadId: 't-1', mention: true });
    const prompt = await pendingPrompt(h, 'group-1');
    expect(prompt.chat.threadId).toBe('t-1');

    const otherThread = await copyOf(h, prompt, { chatId: 'group-1', chatType: 'group', threadId: 't-2' });
    const mainChat = await copyOf(h, prompt, { chatId: 'group-1', chatType: 'group' });
    expect(await h.adapter.click(otherThread.id, 'Approve', ALICE)).toBe(ELSEWHERE);
    expect(await h.adapter.click(mainChat.id, 'Approve', ALICE)).toBe(ELSEWHERE);
    await h.app.approvals.settled();
    await expectUndecided(h, prompt);
    expect((await h.store.audit.list()).map((a) => a.detail)).toEqual(['another thread', 'another thread']);

    // Feishu's card clicks do not say which thread they came from: the prompt's own message does.
    const threadless: FakeMessage = { ...prompt, chat: { channel: h.adapter.id, chatId: 'group-1', chatType: 'group' } };
    expect(await h.adapter.press(threadless, prompt.sentButtons[0]![0]!.payload, ALICE)).toBe('Approved.');
    await settled(h.store, 'memory:group-1:t-1');
    expect(runs).toEqual(['transfer 10 Bob']);
  });

  it('/approve <code> counts only in the chat of the prompt, also for an admin with a session of their own there', async () => {
    const h = await createHarness({ tools: [transfer], env: { PARLEY_GROUP_SESSION: 'per-user', PARLEY_ADMINS: 'memory:u-carol' } });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', chatId: 'group-1', mention: true });
    const prompt = await pendingPrompt(h, 'group-1');
    const code = /Code ([A-Z0-9]{6})/.exec(prompt.text)![1]!;

    await h.adapter.say(`/approve ${code}`, { chatType: 'group', chatId: 'group-2' });
    await waitFor(() => h.adapter.lastBotMessage('group-2')?.text === ELSEWHERE, 'the refusal in the other chat');
    await h.app.approvals.settled();
    await expectUndecided(h, prompt);
    expect((await h.store.audit.list()).map((a) => [a.outcome, a.detail])).toEqual([['refused', 'another chat']]);

    // Carol (an admin) writes in the requester's chat, from her own per-user session there.
    await h.adapter.say(`/approve ${code}`, { chatType: 'group', chatId: 'group-1', from: CAROL });
    await waitFor(() => h.adapter.botMessages('group-1').some((m) => m.text === 'Approved.'), 'the approval');
    await settled(h.store, 'memory:group-1:u-alice');
    expect(runs).toEqual(['transfer 10 Bob']);
    await waitFor(() => /Approved by Carol/.test(h.adapter.messages.get(prompt.id)!.text), 'the prompt showing the outcome');
  });
});
