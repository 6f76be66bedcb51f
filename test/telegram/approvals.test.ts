import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeTelegram, sessionKey, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

function deployTool(deployed: string[]): AnyTool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service to production',
    parameters: z.object({ service: z.string() }),
    approval: 'always',
    describe: ({ service }) => `deploy ${service} to production`,
    async execute({ service }) {
      deployed.push(service);
      return `deployed ${service}`;
    },
  }) as AnyTool;
}

describe('telegram: approval prompts as inline keyboards', () => {
  it('refuses a stranger, lets the requester approve, removes the keyboard and streams the answer', async () => {
    const deployed: string[] = [];
    const { tg, h } = await startTelegram({ tools: [deployTool(deployed)] });
    const alice = tg.user('Alice');
    const bob = tg.user('Bob');
    const group = tg.group('Ops', { supergroup: true });
    h.model.enqueue(
      { text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'Deployed api: all health checks are green and traffic is flowing normally again.', chunkSize: 8, delayMs: 20 },
    );

    const { message: request } = tg.say(alice, group, '@parley_test_bot deploy the api please');
    const prompt = await waitFor(() => tg.botMessages(group).find((m) => m.message.reply_markup), 'the approval prompt');
    expect(prompt.message.text).toContain('Approval needed');
    expect(prompt.message.text).toContain('deploy api to production');
    const buttons = prompt.message.reply_markup!.inline_keyboard.flat();
    expect(buttons.map((b) => b.text)).toEqual(['Approve', 'Deny', 'Always allow here']);
    expect(buttons.map((b) => b.style)).toEqual(['primary', 'danger', undefined]);
    for (const button of buttons) expect(Buffer.byteLength(button.callback_data!)).toBeLessThanOrEqual(64);
    // The arguments are shown as a code block.
    expect(prompt.message.entities?.some((e) => e.type === 'pre' && e.language === 'json')).toBe(true);
    const pending = await h.store.approvals.list({ status: 'pending', limit: 10 });
    expect(pending).toHaveLength(1);

    // A stranger's click: refusal toast, nothing changes.
    const strangerQuery = tg.click(bob, group, prompt.message.message_id, 'Approve');
    await waitFor(() => tg.answersTo(strangerQuery).length === 1, 'the refusal toast');
    expect(tg.answersTo(strangerQuery)[0]!.text).toBe('Only Alice (who asked) or an admin can decide this.');
    expect(deployed).toEqual([]);
    expect(prompt.message.reply_markup).toBeDefined();
    expect(prompt.versions).toHaveLength(1);
    expect((await h.store.approvals.list({ status: 'pending', limit: 10 })).map((a) => a.id)).toEqual(pending.map((a) => a.id));

    // The requester's click: the tool runs, the prompt shows the outcome without buttons, the answer streams.
    const aliceQuery = tg.click(alice, group, prompt.message.message_id, 'Approve');
    await waitFor(() => tg.answersTo(aliceQuery).length === 1, 'the approval toast');
    expect(tg.answersTo(aliceQuery)[0]!.text).toBe('Approved.');
    await waitFor(() => prompt.message.reply_markup === undefined, 'the keyboard to be removed');
    expect(prompt.message.text).toContain('Approved by Alice');
    await waitFor(() => deployed.length === 1, 'the tool to run');
    expect(deployed).toEqual(['api']);
    const answer = await waitFor(
      () => tg.botMessages(group).find((m) => m.message.text?.startsWith('Deployed api') && m.message.text.endsWith('normally again.')),
      'the streamed answer',
    );
    expect(answer.versions.length).toBeGreaterThanOrEqual(2);
    expect(answer.message.reply_to_message?.message_id).toBe(request.message_id);
    await settled(h.store, sessionKey(group));

    // Every button press was answered exactly once.
    for (const query of [strangerQuery, aliceQuery]) {
      expect(tg.callsTo('answerCallbackQuery').filter((c) => c.params.callback_query_id === query)).toHaveLength(1);
    }
    expect(tg.callsTo('answerCallbackQuery').every((c) => c.ok)).toBe(true);
  });

  it('acknowledges a click at once while editing the prompt takes 5 s; the tool runs once and the prompt is edited afterwards', async () => {
    const deployed: string[] = [];
    const { tg, h } = await startTelegram({ tools: [deployTool(deployed)] });
    const alice = tg.user('Alice');
    const bob = tg.user('Bob');
    const group = tg.group('Ops', { supergroup: true });
    h.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] }, { text: 'Deployed.' });
    tg.say(alice, group, '@parley_test_bot deploy the api');
    const prompt = await waitFor(() => tg.botMessages(group).find((m) => m.message.reply_markup), 'the approval prompt');
    const promptId = prompt.message.message_id;
    const answerOf = (query: string) => tg.callsTo('answerCallbackQuery').find((c) => c.params.callback_query_id === query);
    const SLOW_EDIT_MS = 5_000;
    tg.delayNext('editMessageText', SLOW_EDIT_MS, { times: 5, when: (params) => Number(params.message_id) === promptId });

    const strangerAt = Date.now();
    const stranger = tg.click(bob, group, promptId, 'Approve');
    const refusal = await waitFor(() => answerOf(stranger), 'the refusal toast');
    expect(refusal.at - strangerAt).toBeLessThan(1_000);
    expect(tg.answersTo(stranger)[0]!.text).toBe('Only Alice (who asked) or an admin can decide this.');

    const clickedAt = Date.now();
    const query = tg.click(alice, group, promptId, 'Approve');
    const ack = await waitFor(() => answerOf(query), 'the acknowledgement');
    expect(ack.at - clickedAt).toBeLessThan(1_000);
    expect(tg.answersTo(query)[0]!.text).toBe('Approved.');
    // The prompt edit was asked for but is still on its way: the keyboard is still there.
    expect(prompt.message.reply_markup).toBeDefined();
    await waitFor(
      () => tg.callsTo('editMessageText').some((c) => Number(c.params.message_id) === promptId),
      'the prompt edit to be requested',
    );

    await waitFor(() => prompt.message.reply_markup === undefined, 'the prompt edit', 20_000);
    expect(Date.now() - clickedAt).toBeGreaterThanOrEqual(SLOW_EDIT_MS);
    expect(prompt.message.text).toContain('Approved by Alice');
    await settled(h.store, sessionKey(group), 20_000);
    expect(deployed).toEqual(['api']);
    expect(tg.callsTo('answerCallbackQuery').filter((c) => c.params.callback_query_id === query)).toHaveLength(1);
  });

  it('a denial also ends with the outcome and no keyboard', async () => {
    const deployed: string[] = [];
    const { tg, h } = await startTelegram({ tools: [deployTool(deployed)] });
    const alice = tg.user('Alice');
    const dm = tg.privateChat(alice);
    h.model.enqueue({ toolCalls: [{ name: 'deploy', arguments: { service: 'db' } }] }, { text: 'Understood, I did not deploy.' });

    tg.say(alice, dm, 'deploy the db');
    const prompt = await waitFor(() => tg.botMessages(dm).find((m) => m.message.reply_markup), 'the approval prompt');
    const query = tg.click(alice, dm, prompt.message.message_id, 'Deny');
    await waitFor(() => tg.answersTo(query)[0]?.text === 'Denied.', 'the denial toast');
    await waitFor(() => prompt.message.reply_markup === undefined && prompt.message.text?.includes('Denied by Alice'), 'the outcome');
    await waitFor(() => tg.botMessages(dm).some((m) => m.message.text === 'Understood, I did not deploy.'), 'the answer');
    expect(deployed).toEqual([]);
    await settled(h.store, sessionKey(dm));
  });
});
