import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { ALICE, BOB, MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';
import { runCli } from '../../src/cli/program.ts';
import { openStore } from '../../src/store/store.ts';
import { expectNoButtons, promptsIn, runs, transfer, transferCall, waitForStatus } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

const DM = 'memory:dm-u-alice';

describe('approvals: expiry, restarts, grants, text fallback', () => {
  it('expiry counts as a denial: the prompt is edited and the turn resumes with the expiry result', async () => {
    const h = await createHarness({ tools: [transfer], env: { PARLEY_APPROVAL_TTL: '400ms' } });
    h.model.enqueue({ toolCalls: [transferCall()] }, (request) => ({
      text: request.body.messages.at(-1)!.content?.startsWith('Not run: nobody approved this call before it expired')
        ? 'Nobody approved, so nothing was sent.'
        : 'unexpected',
    }));
    await h.adapter.say('send Bob 10 euros');
    const [prompt] = await promptsIn(h.adapter);
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('done');
    expect(runs).toEqual([]);
    expect(h.adapter.lastBotMessage()!.text).toBe('Nobody approved, so nothing was sent.');
    const edited = h.adapter.messages.get(prompt!.id)!;
    expect(edited.text).toMatch(/^⌛ Expired at .* without a decision; treated as denied\./);
    expectNoButtons(edited);
    const [approval] = await h.store.approvals.list();
    expect(approval).toMatchObject({ status: 'expired', reason: 'expired' });
    // A click after expiry changes nothing and says why.
    const payload = prompt!.sentButtons.flat()[0]!.payload;
    expect(await h.adapter.press(edited, payload, ALICE)).toBe('This request already expired (treated as denied).');
    expect((await h.store.audit.list()).map((a) => a.action)).toEqual(['approve', 'expire']);
  });

  it('an approval that expired while no process ran is swept on start', async () => {
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    // This process never sweeps, so the approval can only expire "while nothing runs".
    const first = await createHarness({
      tools: [transfer],
      model,
      adapters: [channel],
      env: { PARLEY_APPROVAL_TTL: '300ms' },
      sweepIntervalMs: 60_000,
    });
    model.enqueue({ toolCalls: [transferCall()] });
    await channel.say('send Bob 10 euros');
    const [prompt] = await promptsIn(channel);
    await waitForStatus(first, DM, 'awaiting_approval');
    // Stop before the sweeper expires it; nothing runs while the approval expires.
    await first.stop();
    await new Promise((r) => setTimeout(r, 400));
    const offline = await openStore(first.config.database);
    expect((await offline.approvals.list())[0]!.status).toBe('pending');
    await offline.close();

    model.enqueue({ text: 'It expired, nothing was sent.' });
    const second = await createHarness({
      tools: [transfer],
      model,
      adapters: [channel],
      dbFile: first.dbFile,
      env: { PARLEY_APPROVAL_TTL: '300ms' },
    });
    const [turn] = await settled(second.store, DM);
    expect(turn!.status).toBe('done');
    expect(channel.messages.get(prompt!.id)!.text).toMatch(/^⌛ Expired/);
    expect(channel.lastBotMessage()!.text).toBe('It expired, nothing was sent.');
    expect(runs).toEqual([]);
    await model.close();
  });

  it('a click after the process was replaced (new store, new gateway) still resumes the turn', async () => {
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createHarness({ tools: [transfer], model, adapters: [channel] });
    model.enqueue({ toolCalls: [transferCall(3, 'Dave')] });
    await channel.say('send Dave 3 euros');
    const [prompt] = await promptsIn(channel);
    await waitForStatus(first, DM, 'awaiting_approval');
    await first.stop();

    const second = await createHarness({ tools: [transfer], model, adapters: [channel], dbFile: first.dbFile });
    model.enqueue({ text: 'Sent 3 EUR to Dave.' });
    expect(await channel.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(second.store, DM);
    expect(runs).toEqual(['transfer 3 Dave']);
    expect(channel.lastBotMessage()!.text).toBe('Sent 3 EUR to Dave.');
    expectNoButtons(channel.messages.get(prompt!.id)!);
    await model.close();
  });

  it('a prompt whose whereabouts were never stored (killed right after sending it) is still edited after the click', async () => {
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createHarness({ tools: [transfer], model, adapters: [channel] });
    // The crash window: the prompt reached the chat, but its SentRef never reached the database.
    first.app.approvals.prompts.sent = async () => {};
    model.enqueue({ toolCalls: [transferCall(4, 'Erin')] });
    await channel.say('send Erin 4 euros');
    const [prompt] = await promptsIn(channel);
    await waitForStatus(first, DM, 'awaiting_approval');
    expect((await first.store.approvals.list())[0]!.promptRef).toBeUndefined();
    await first.stop();

    const second = await createHarness({ tools: [transfer], model, adapters: [channel], dbFile: first.dbFile });
    model.enqueue({ text: 'Sent 4 EUR to Erin.' });
    expect(await channel.click(prompt!.id, 'Approve', ALICE)).toBe('Approved.');
    await settled(second.store, DM);
    expect(runs).toEqual(['transfer 4 Erin']);
    await waitFor(() => channel.messages.get(prompt!.id)!.buttons.length === 0, 'the clicked prompt edited without buttons');
    expect(channel.messages.get(prompt!.id)!.text).toMatch(/Approved by Alice/);
    expect((await second.store.approvals.list())[0]!.promptRef?.messageId).toBe(prompt!.id);
    await model.close();
  });

  it('"Always allow here" skips the prompt next time in that session only, until /revoke', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(1, 'Bob')] }, { text: 'Sent 1.' });
    await h.adapter.say('send Bob 1');
    const [prompt] = await promptsIn(h.adapter);
    expect(await h.adapter.click(prompt!.id, 'Always allow here', ALICE)).toBe('Approved, and transfer_money is allowed here from now on.');
    await settled(h.store, DM);
    expect(h.adapter.messages.get(prompt!.id)!.text).toMatch(/always allowed in this conversation/);

    // Same session: runs without a prompt.
    h.model.enqueue({ toolCalls: [transferCall(2, 'Bob')] }, { text: 'Sent 2.' });
    await h.adapter.say('send Bob 2');
    await settled(h.store, DM);
    expect(runs).toEqual(['transfer 1 Bob', 'transfer 2 Bob']);
    expect(h.adapter.prompts()).toHaveLength(1);

    // Another session (Bob's DM) still prompts.
    h.model.enqueue({ toolCalls: [transferCall(9, 'Alice')] });
    await h.adapter.say('send Alice 9', { from: BOB });
    await promptsIn(h.adapter, 1, 'dm-u-bob');
    expect(runs).toHaveLength(2);

    // /revoke removes the grant: the next call prompts again.
    await h.adapter.say('/revoke');
    await waitFor(() => h.adapter.lastBotMessage('dm-u-alice')?.text.startsWith('Revoked'), 'revoke reply');
    expect(h.adapter.lastBotMessage('dm-u-alice')!.text).toBe('Revoked 1 grant: every gated tool needs approval again here.');
    h.model.enqueue({ toolCalls: [transferCall(4, 'Bob')] });
    await h.adapter.say('send Bob 4');
    await promptsIn(h.adapter, 2, 'dm-u-alice');
    expect(runs).toHaveLength(2);
  });

  it('/approve <code> works where buttons are not available', async () => {
    const channel = new MemoryAdapter({ id: 'plain', capabilities: { canButtons: false, canEdit: false } });
    const h = await createHarness({ tools: [transfer], adapters: [channel] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await channel.say('send Bob 10');
    const prompt = await waitFor(() => channel.botMessages().find((m) => m.text.includes('Approval needed')), 'text prompt');
    expect(prompt.buttons).toEqual([]);
    const code = /Reply \/approve ([A-Z0-9]{6}) or \/deny/.exec(prompt.text)?.[1];
    expect(code).toBeDefined();
    await channel.say('/approve ZZZZZZ');
    await waitFor(() => channel.lastBotMessage()?.text.includes('no approval with code ZZZZZZ'), 'unknown code reply');
    await channel.say(`/approve ${code!.toLowerCase()}`);
    await settled(h.store, 'plain:dm-u-alice');
    expect(runs).toEqual(['transfer 10 Bob']);
    expect(channel.botMessages().map((m) => m.text)).toContain('Approved.');
    expect(channel.lastBotMessage()!.text).toBe('Sent.');
  });

  it("reads the button payload limit from the channel's capabilities: tokens that would not fit give the text form", async () => {
    const tight = new MemoryAdapter({ id: 'tight', capabilities: { maxButtonPayload: 16 } });
    const roomy = new MemoryAdapter({ id: 'roomy', capabilities: { maxButtonPayload: 64 } });
    const h = await createHarness({ tools: [transfer], adapters: [tight, roomy] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await tight.say('send Bob 10');
    const prompt = await waitFor(() => tight.botMessages().find((m) => m.text.includes('Approval needed')), 'text prompt');
    expect(prompt.sentButtons).toEqual([]);
    const code = /Reply \/approve ([A-Z0-9]{6}) or \/deny/.exec(prompt.text)?.[1];
    await tight.say(`/approve ${code}`);
    await settled(h.store, 'tight:dm-u-alice');
    expect(runs).toEqual(['transfer 10 Bob']);

    h.model.enqueue({ toolCalls: [transferCall(5)] }, { text: 'Sent.' });
    await roomy.say('send Bob 5');
    const [withButtons] = await promptsIn(roomy);
    expect(withButtons!.sentButtons.flat().map((b) => b.label)).toEqual(['Approve', 'Deny', 'Always allow here']);
    for (const button of withButtons!.sentButtons.flat()) expect(Buffer.byteLength(button.payload)).toBeLessThanOrEqual(64);
  });

  it('/deny <code> reason passes the reason to the model', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Understood.' });
    await h.adapter.say('send Bob 10');
    const [prompt] = await promptsIn(h.adapter);
    const code = /Code ([A-Z0-9]{6})/.exec(prompt!.text)![1]!;
    await h.adapter.say(`/deny ${code} not this month`);
    await settled(h.store, DM);
    const result = h.model.requests[1]!.body.messages.at(-1)!;
    expect(result.content).toBe('Not run: Alice denied this call: not this month. Do not retry it unless the user asks.');
  });

  it('/stop while waiting for approval denies the request and cancels the turn', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] });
    await h.adapter.say('send Bob 10');
    const [prompt] = await promptsIn(h.adapter);
    await h.adapter.say('/stop');
    const [turn] = await settled(h.store, DM);
    expect(turn!.status).toBe('cancelled');
    expect(h.adapter.messages.get(prompt!.id)!.text).toMatch(/Denied by Parley.*stopped by Alice/);
    // The conversation stays well-formed for the next turn.
    h.model.enqueue({ text: 'Hi again.' });
    await h.adapter.say('hello');
    await settled(h.store, DM);
    const roles = h.model.requests.at(-1)!.body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  });

  it('parley approvals list shows requests and outcomes, as a table and as JSON', async () => {
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall()] });
    await h.adapter.say('send Bob 10');
    await promptsIn(h.adapter);
    await waitForStatus(h, DM, 'awaiting_approval');
    let out = '';
    const io = {
      out: (t: string) => (out += t),
      err: (t: string) => (out += t),
      isTTY: false,
      env: { DATABASE_URL: `file:${h.dbFile}` },
      cwd: process.cwd(),
    };
    expect(await runCli(['approvals', 'list', '--pending'], io)).toBe(0);
    expect(out).toMatch(/transfer_money.*pending.*Alice/);
    out = '';
    expect(await runCli(['approvals', 'list', '--json'], io)).toBe(0);
    const listed = JSON.parse(out) as { toolName: string; status: string; token?: string }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ toolName: 'transfer_money', status: 'pending' });
    expect(listed[0]!.token).toBeUndefined();
  });
});

describe('approvals: /approve without a code', () => {
  it('decides the only pending request of the conversation, and asks for a code when there are several', async () => {
    runs.length = 0;
    const h = await createHarness({ tools: [transfer] });
    h.model.enqueue({ toolCalls: [transferCall(1, 'Bob'), transferCall(2, 'Carol')] }, { text: 'Both handled.' });
    await h.adapter.say('pay both');
    const prompts = await promptsIn(h.adapter, 2);
    await h.adapter.say('/approve');
    await waitFor(() => h.adapter.lastBotMessage()?.text.startsWith('Several approvals are pending'), 'ask for a code');
    await h.adapter.click(prompts[0]!.id, 'Deny', ALICE);
    await h.adapter.say('/approve');
    await settled(h.store, DM);
    expect(runs).toEqual(['transfer 2 Carol']);
    await h.adapter.say('/approve');
    await waitFor(() => h.adapter.lastBotMessage()?.text === 'There is no pending approval here.', 'nothing pending');
  });
});
