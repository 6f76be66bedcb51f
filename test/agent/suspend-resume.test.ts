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
  return { model, dbFile: first.dbFile, turnId: turn.id, token: approval!.token };
}

const alice = { id: 'u-alice', displayName: 'Alice', channel: 'memory' };

describe('suspension for approval and resume from the database', () => {
  it('resumes an approved call from a fresh store and gateway, and finishes the answer', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId, token } = await suspendedTurn();
    const second = await createHarness({ tools: [deleteFile], model, dbFile });
    model.enqueue({ text: 'Done, the file is gone.' });
    expect(await second.app.approvals.decide(token, alice, 'approve')).toMatchObject({ ok: true, message: 'Approved.' });
    await second.app.approvals.settled();
    expect(deleted).toEqual(['/tmp/x']);
    const turn = await second.store.turns.get(turnId);
    expect(turn).toMatchObject({ status: 'done', rounds: 2 });
    expect(await second.store.audit.list({ approvalId: (await second.store.approvals.byToken(token))!.id })).toMatchObject([
      { actor: { id: 'memory:u-alice' }, action: 'approve', outcome: 'approved' },
    ]);
    const request = model.requests.at(-1)!.body.messages;
    expect(request.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(request.at(-1)).toMatchObject({ tool_call_id: 'call_del', content: 'deleted /tmp/x' });
    expect(second.adapter.lastBotMessage()!.text).toBe('Done, the file is gone.');
    await model.close();
  });

  it('resumes a denied call with an error result naming who denied and why', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId, token } = await suspendedTurn();
    // Bob did not ask: only as an admin may he decide.
    const second = await createHarness({ tools: [deleteFile], model, dbFile, env: { PARLEY_ADMINS: 'memory:u-bob' } });
    model.enqueue({ text: 'Bob did not allow it, so I left the file alone.' });
    const bob = { id: 'u-bob', displayName: 'Bob', channel: 'memory' };
    expect(await second.app.approvals.decide(token, bob, 'deny', 'too risky')).toMatchObject({ ok: true, message: 'Denied.' });
    await second.app.approvals.settled();
    expect((await second.store.turns.get(turnId))?.status).toBe('done');
    expect(deleted).toEqual([]);
    const result = model.requests.at(-1)!.body.messages.at(-1)!;
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'call_del' });
    expect(result.content).toBe('Not run: Bob denied this call: too risky. Do not retry it unless the user asks.');
    const [approval] = await second.store.approvals.forTurn(turnId);
    expect(approval).toMatchObject({ status: 'denied', decidedBy: { id: 'u-bob' }, reason: 'too risky' });
    // The decision went through authorisation and the audit log.
    expect(await second.store.audit.list({ approvalId: approval!.id })).toMatchObject([
      { actor: { id: 'memory:u-bob' }, action: 'deny', outcome: 'denied' },
    ]);
    await model.close();
  });

  it('racing decisions and resumes of the same turn run the call once', async () => {
    deleted.length = 0;
    const { model, dbFile, turnId, token } = await suspendedTurn();
    const second = await createHarness({ tools: [deleteFile], model, dbFile });
    model.enqueue({ text: 'Deleted.' });
    const decisions = await Promise.all([
      second.app.approvals.decide(token, alice, 'approve'),
      second.app.approvals.decide(token, alice, 'approve'),
    ]);
    expect(decisions.map((d) => d.message).sort()).toEqual(['Already approved by Alice.', 'Approved.']);
    const outcomes = await Promise.all([second.app.gateway.resume(turnId), second.app.gateway.resume(turnId)]);
    await second.app.approvals.settled();
    const [turn] = await settled(second.store, 'memory:dm-u-alice');
    expect(turn).toMatchObject({ id: turnId, status: 'done', rounds: 2 });
    expect(outcomes.filter((o) => o?.status === 'done').length).toBeLessThanOrEqual(1);
    expect(deleted).toEqual(['/tmp/x']);
    expect(model.requests).toHaveLength(2);
    await model.close();
  });
});
