import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const deleted: string[] = [];
const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Deletes a file',
  parameters: z.object({ path: z.string() }),
  approval: 'always',
  describe: ({ path }) => `delete the file ${path}`,
  async execute({ path }) {
    deleted.push(path);
    return `deleted ${path}`;
  },
}) as AnyTool;

async function suspendedTurn() {
  const model = await FakeModelServer.start();
  const first = await createHarness({ tools: [deleteFile], model });
  model.enqueue({ text: 'I will delete it.', toolCalls: [{ id: 'call_del', name: 'delete_file', arguments: { path: '/tmp/x' } }] });
  await first.adapter.say('delete /tmp/x');
  const session = await waitFor(() => first.store.sessions.getByKey('memory:dm-u-alice'), 'session');
  const turn = await waitFor(async () => {
    const active = await first.store.turns.active(session.id);
    return active?.status === 'awaiting_approval' ? active : undefined;
  }, 'turn to suspend');
  const [approval] = await first.store.approvals.forTurn(turn.id);
  expect(approval).toMatchObject({ status: 'pending', toolName: 'delete_file', toolCallId: 'call_del', requester: { id: 'u-alice' } });
  expect(deleted).toEqual([]);
  // The process goes away: nothing about the turn is kept in memory.
  await first.stop();
  return { model, dbFile: first.dbFile, turnId: turn.id };
}

describe('suspension for approval and resume from the database', () => {
  it('resumes an approved call from a fresh store and gateway, and finishes the answer', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId } = await suspendedTurn();
    const second = await createHarness({ tools: [deleteFile], model, dbFile });
    model.enqueue({ text: 'Done, the file is gone.' });
    const outcome = await second.app.gateway.resume(turnId, {
      call_del: { status: 'approved', by: { id: 'u-alice', displayName: 'Alice' } },
    });
    expect(outcome?.status).toBe('done');
    expect(deleted).toEqual(['/tmp/x']);
    const turn = await second.store.turns.get(turnId);
    expect(turn).toMatchObject({ status: 'done', rounds: 2 });
    const request = model.requests.at(-1)!.body.messages;
    expect(request.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(request.at(-1)).toMatchObject({ tool_call_id: 'call_del', content: 'deleted /tmp/x' });
    expect(second.adapter.lastBotMessage()!.text).toBe('Done, the file is gone.');
    await model.close();
  });

  it('resumes a denied call with an error result naming who denied and why', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId } = await suspendedTurn();
    const second = await createHarness({ tools: [deleteFile], model, dbFile });
    model.enqueue({ text: 'Bob did not allow it, so I left the file alone.' });
    const outcome = await second.app.gateway.resume(turnId, {
      call_del: { status: 'denied', by: { id: 'u-bob', displayName: 'Bob' }, reason: 'too risky' },
    });
    expect(outcome?.status).toBe('done');
    expect(deleted).toEqual([]);
    const result = model.requests.at(-1)!.body.messages.at(-1)!;
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'call_del' });
    expect(result.content).toBe('Not run: Bob denied this call: too risky. Do not retry it unless the user asks.');
    const [approval] = await second.store.approvals.forTurn(turnId);
    expect(approval).toMatchObject({ status: 'denied', decidedBy: { id: 'u-bob' }, reason: 'too risky' });
    await model.close();
  });

  it('a second resume of the same turn does nothing', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId } = await suspendedTurn();
    const second = await createHarness({ tools: [deleteFile], model, dbFile });
    model.enqueue({ text: 'Deleted.' });
    const decision = { call_del: { status: 'approved' as const, by: { id: 'u-alice', displayName: 'Alice' } } };
    const [a, b] = await Promise.all([second.app.gateway.resume(turnId, decision), second.app.gateway.resume(turnId, decision)]);
    expect([a?.status, b?.status].filter(Boolean)).toEqual(['done']);
    expect(deleted).toEqual(['/tmp/x']);
    await settled(second.store, 'memory:dm-u-alice');
    await model.close();
  });
});
