// `parley approvals approve|deny <code>` from another process while the bot runs (SQLite): the
// same exactly-once decision as the buttons, audited as the operator; the running bot notices it
// on its heartbeat, edits the prompt to show it and continues the turn.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor, type Harness } from '../helpers/harness.ts';
import { promptsIn, runs, transfer, transferCall } from './helpers.ts';

afterEach(closeAll);
beforeEach(() => {
  runs.length = 0;
});

/** No periodic sweep (as in production): only the heartbeat's notice of the CLI's write continues the turn. */
const ONE_HOUR = 3_600_000;

async function parley(dbFile: string, argv: string[]) {
  let out = '';
  let err = '';
  const env = { DATABASE_URL: `file:${dbFile}`, PARLEY_LOG_LEVEL: 'silent', USER: 'ops' };
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), isTTY: false, env, cwd: process.cwd() });
  return { code, out, err };
}

async function pending(h: Harness) {
  const [prompt] = await promptsIn(h.adapter, 1, 'group-1');
  const approval = await waitFor(async () => (await h.store.approvals.list()).find((a) => a.promptRef), 'the prompt recorded');
  return { prompt: prompt!, approval };
}

describe('parley approvals approve|deny', () => {
  it('approves once; the running bot edits the prompt and runs the tool; later decisions change nothing', async () => {
    const h = await createHarness({ tools: [transfer], heartbeatMs: 100, sweepIntervalMs: ONE_HOUR });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', chatId: 'group-1', mention: true });
    const { prompt, approval } = await pending(h);

    const run = await parley(h.dbFile, ['approvals', 'approve', approval.code]);
    expect(run, run.err).toMatchObject({
      code: 0,
      out: expect.stringContaining(`Approved ${approval.code} (transfer_money, asked by Alice).`),
    });
    await waitFor(() => runs.length === 1, 'the tool run by the bot');
    await settled(h.store, 'memory:group-1');
    expect(runs).toEqual(['transfer 10 Bob']);
    await waitFor(() => h.adapter.messages.get(prompt.id)!.buttons.length === 0, 'the prompt updated');
    expect(h.adapter.messages.get(prompt.id)!.text).toMatch(/^✅ Approved by ops \(parley CLI\)/);
    expect(h.adapter.lastBotMessage('group-1')!.text).toBe('Sent.');

    // A press on the old buttons (a client that still shows them) changes nothing.
    const deny = prompt.sentButtons.flat().find((b) => b.label === 'Deny')!;
    expect(await h.adapter.press(h.adapter.messages.get(prompt.id)!, deny.payload, ALICE)).toBe('Already approved by ops (parley CLI).');
    const again = await parley(h.dbFile, ['approvals', 'deny', approval.code]);
    expect(again.code).toBe(1);
    expect(again.err).toBe('parley: Already approved by ops (parley CLI).\n');
    const audit = (await h.store.audit.list()).map((a) => [a.actor.id, a.action, a.outcome]);
    expect(audit).toContainEqual(['cli:ops', 'approve', 'approved']);
    expect(audit).toContainEqual(['cli:ops', 'deny', 'refused']);
  });

  it('denies with a reason the model is told, and refuses an unknown code', async () => {
    const h = await createHarness({ tools: [transfer], heartbeatMs: 100, sweepIntervalMs: ONE_HOUR });
    h.model.enqueue({ toolCalls: [transferCall()] }, { text: 'Not sent.' });
    await h.adapter.say('send Bob 10 euros', { chatType: 'group', chatId: 'group-1', mention: true });
    const { approval } = await pending(h);

    expect((await parley(h.dbFile, ['approvals', 'deny', 'nosuchcode'])).code).toBe(1);
    const run = await parley(h.dbFile, ['approvals', 'deny', approval.code, '--reason', 'not this month']);
    expect(run.code, run.err).toBe(0);
    await waitFor(() => h.model.requests.length === 2, 'the turn continued');
    await settled(h.store, 'memory:group-1');
    expect(runs).toEqual([]);
    expect(JSON.stringify(h.model.requests[1]!.body.messages.at(-1))).toContain('not this month');
  });
});
