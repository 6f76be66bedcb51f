// A process killed while a tool call ran leaves, in the database: the assistant message with its
// calls, a start record for each call that had begun, no result. The next process must not run
// such a call again (unless its tool is idempotent): the model is told it was interrupted, and the
// chat once. Calls that never started run (or are gated) as usual.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INTERRUPTED_RESULT } from '../../src/agent/recovery.ts';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import type { ToolCallRecord } from '../../src/store/types.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, tempDir, testConfig, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const ALICE = { id: 'u-alice', displayName: 'Alice' };
const CHAT = { channel: 'memory', chatId: 'dm-u-alice', chatType: 'direct' as const };

function tools(runs: Record<string, number>): AnyTool[] {
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  return [
    defineTool({
      name: 'transfer',
      description: 'Moves money (a side effect that must not happen twice)',
      parameters: z.object({ amount: z.number() }),
      approval: 'always',
      async execute({ amount }) {
        count('transfer');
        return `moved ${amount}`;
      },
    }),
    defineTool({
      name: 'note',
      description: 'Appends a note (runs without approval)',
      parameters: z.object({ text: z.string() }),
      approval: 'never',
      async execute({ text }) {
        count('note');
        return `noted ${text}`;
      },
    }),
    defineTool({
      name: 'lookup',
      description: 'Reads a value',
      parameters: z.object({ key: z.string() }),
      approval: 'never',
      idempotent: true,
      async execute({ key }) {
        count('lookup');
        return `${key} = 42`;
      },
    }),
  ] as AnyTool[];
}

/** Writes what a process killed in the middle of a tool batch leaves behind. */
async function crashedTurn(dbFile: string, calls: ToolCallRecord[], state: { started: string[]; approved?: string[] }) {
  const store: Store = await openStore(testConfig(`file:${dbFile}`, undefined).database);
  const session = await store.sessions.ensure({ key: 'memory:dm-u-alice', ...CHAT });
  const turn = await store.turns.create({ sessionId: session.id, epoch: 0, origin: { chat: CHAT, requester: ALICE } });
  const base = { sessionId: session.id, epoch: 0, turnId: turn.id };
  await store.messages.append({ ...base, role: 'user', content: 'do it', senderId: ALICE.id, senderName: ALICE.displayName });
  await store.turns.addRound(turn.id, undefined);
  const assistant = await store.messages.append({ ...base, role: 'assistant', content: 'On it.', toolCalls: calls });
  for (const id of state.approved ?? []) {
    const call = calls.find((c) => c.id === id)!;
    const approval = await store.approvals.create({
      turnId: turn.id,
      sessionId: session.id,
      messageId: assistant.id,
      toolCallId: call.id,
      toolName: call.name,
      arguments: call.arguments,
      requester: ALICE,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await store.approvals.decide(approval.id, { status: 'approved', by: ALICE });
  }
  await store.toolStarts.record(
    turn.id,
    calls.filter((c) => state.started.includes(c.id)),
  );
  await store.close();
  return turn.id;
}

function toolResults(model: FakeModelServer) {
  return Object.fromEntries(
    model.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content]),
  );
}

describe('recovery of tool calls after a crash', () => {
  it('an approved call that had started is not run again; an idempotent one is; the chat is told once', async () => {
    const dbFile = join(tempDir(), 'parley.db');
    const turnId = await crashedTurn(
      dbFile,
      [
        { id: 'call_pay', name: 'transfer', arguments: '{"amount":100}' },
        { id: 'call_read', name: 'lookup', arguments: '{"key":"balance"}' },
      ],
      { started: ['call_pay', 'call_read'], approved: ['call_pay'] },
    );
    const runs: Record<string, number> = {};
    const model = await FakeModelServer.start();
    model.enqueue({ text: 'The transfer may or may not have gone through; please check your account.' });
    const h = await createHarness({ model, dbFile, tools: tools(runs) });
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ id: turnId, status: 'done', rounds: 2 });

    expect(runs).toEqual({ lookup: 1 });
    expect(toolResults(model)).toEqual({ call_pay: INTERRUPTED_RESULT, call_read: 'balance = 42' });
    const answer = await waitFor(() => h.adapter.botMessages().find((m) => m.text.includes('I was interrupted')), 'the answer');
    expect(answer.text).toBe(
      'The transfer may or may not have gone through; please check your account.\n\n_I was interrupted while running transfer; it may or may not have taken effect, and I did not run it again._',
    );
    const notices = h.adapter.botMessages().flatMap((m) => m.text.match(/I was interrupted/g) ?? []);
    expect(notices).toHaveLength(1);
    await model.close();
  });

  it('an idempotent call cut off before its result (it has no start record) runs again; a started one that is not, does not', async () => {
    const dbFile = join(tempDir(), 'parley.db');
    const turnId = await crashedTurn(
      dbFile,
      [
        { id: 'call_note', name: 'note', arguments: '{"text":"hi"}' },
        { id: 'call_read', name: 'lookup', arguments: '{"key":"balance"}' },
      ],
      { started: ['call_note'] },
    );
    const runs: Record<string, number> = {};
    const model = await FakeModelServer.start();
    model.enqueue({ text: 'Balance read.' });
    const h = await createHarness({ model, dbFile, tools: tools(runs) });
    const [turn] = await settled(h.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ id: turnId, status: 'done' });
    expect(runs).toEqual({ lookup: 1 });
    expect(toolResults(model)).toEqual({ call_note: INTERRUPTED_RESULT, call_read: 'balance = 42' });
    await model.close();
  });

  it('the chat is told even when the continued turn stops for another approval', async () => {
    const dbFile = join(tempDir(), 'parley.db');
    const turnId = await crashedTurn(dbFile, [{ id: 'call_pay', name: 'transfer', arguments: '{"amount":7}' }], {
      started: ['call_pay'],
      approved: ['call_pay'],
    });
    const runs: Record<string, number> = {};
    const model = await FakeModelServer.start();
    model.enqueue({
      text: 'I will check with a smaller amount first.',
      toolCalls: [{ id: 'call_probe', name: 'transfer', arguments: { amount: 1 } }],
    });
    const h = await createHarness({ model, dbFile, tools: tools(runs) });
    await waitFor(async () => (await h.store.turns.get(turnId))?.status === 'awaiting_approval', 'the turn to suspend again');
    await waitFor(() => h.adapter.prompts().length === 1, 'the new approval prompt');
    expect(runs).toEqual({});
    const told = h.adapter.botMessages().flatMap((m) => m.text.match(/I was interrupted while running transfer/g) ?? []);
    expect(told).toHaveLength(1);
    await model.close();
  });

  it('calls that never started run as usual: free ones at once, gated ones get their prompt', async () => {
    const dbFile = join(tempDir(), 'parley.db');
    const turnId = await crashedTurn(
      dbFile,
      [
        { id: 'call_note', name: 'note', arguments: '{"text":"hello"}' },
        { id: 'call_pay', name: 'transfer', arguments: '{"amount":5}' },
      ],
      { started: [] },
    );
    const runs: Record<string, number> = {};
    const model = await FakeModelServer.start();
    const h = await createHarness({ model, dbFile, tools: tools(runs) });
    const approval = await waitFor(async () => (await h.store.approvals.forTurn(turnId))[0], 'the approval for the gated call');
    expect(approval).toMatchObject({ toolCallId: 'call_pay', status: 'pending' });
    await waitFor(() => h.adapter.prompts().length === 1, 'the approval prompt');
    expect(runs).toEqual({ note: 1 });
    expect((await h.store.turns.get(turnId))!.status).toBe('awaiting_approval');
    expect(h.adapter.botMessages().some((m) => m.text.includes('I was interrupted'))).toBe(false);

    // Approved now: it runs exactly once, after its start record was committed.
    model.enqueue({ text: 'Noted and moved.' });
    expect(await h.adapter.click(h.adapter.prompts()[0]!.id, 'Approve', { id: ALICE.id, name: ALICE.displayName })).toBe('Approved.');
    await h.app.approvals.settled();
    expect(runs).toEqual({ note: 1, transfer: 1 });
    expect([...(await h.store.toolStarts.started(turnId))].sort()).toEqual(['call_note', 'call_pay']);
    expect(toolResults(model)).toEqual({ call_note: 'noted hello', call_pay: 'moved 5' });
    await model.close();
  });

  it('of the built-in tools only reads and memory writes are retried after a crash; risky ones never', async () => {
    const h = await createHarness({ noModel: true, start: false });
    const retried = h.app.tools
      .list()
      .filter((tool) => tool.idempotent)
      .map((tool) => tool.name);
    expect(retried.sort()).toEqual(['forget', 'read_knowledge_page', 'remember', 'search_knowledge']);
  });

  it('records a start for every call that runs, in one batch, before the tool runs', async () => {
    const runs: Record<string, number> = {};
    let startedBeforeRun: string[] | undefined;
    let store: Store | undefined;
    let turnId = '';
    const probe = defineTool({
      name: 'probe',
      description: 'Looks at the database from inside a tool',
      parameters: z.object({}),
      approval: 'never',
      async execute(_args, ctx) {
        turnId = ctx.turnId;
        startedBeforeRun = [...(await store!.toolStarts.started(ctx.turnId))].sort();
        return 'ok';
      },
    }) as AnyTool;
    const h = await createHarness({ tools: [...tools(runs), probe] });
    store = h.store;
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'probe', arguments: {} },
          { id: 'c2', name: 'note', arguments: { text: 'x' } },
          { id: 'c3', name: 'nope', arguments: {} },
          { id: 'c4', name: 'note', arguments: '{not json' },
        ],
      },
      { text: 'Done.' },
    );
    await h.adapter.say('go');
    await settled(h.store, 'memory:dm-u-alice');
    // Unknown tools and invalid arguments have no side effect to guard: no record for them.
    expect(startedBeforeRun).toEqual(['c1', 'c2']);
    expect([...(await h.store.toolStarts.started(turnId))].sort()).toEqual(['c1', 'c2']);
  });
});
