// The agent loop on its ports alone: an in-memory journal, a scripted model and scripted hooks.
// No database, no HTTP: these run in milliseconds.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type TurnRun } from '../../src/agent/agent.ts';
import type { AgentEvent } from '../../src/agent/events.ts';
import type { BeforeToolResult, Settlement, ToolHooks } from '../../src/agent/hooks.ts';
import { INTERRUPTED_RESULT } from '../../src/agent/recovery.ts';
import { type AnyTool, defineTool, ToolRegistry } from '../../src/agent/tools.ts';
import { silentLogger } from '../../src/log.ts';
import type { ApprovalRecord } from '../../src/store/types.ts';
import { MemoryJournal, ScriptedModel, type ScriptedReply } from '../helpers/memory-journal.ts';

const SETTINGS = { maxRounds: 10, loopWarnAt: 3, loopStopAt: 5, toolTimeoutMs: 5_000, toolResultMaxChars: 16_000, contextTokens: 24_000 };

function counter(
  name: string,
  runs: string[],
  options: { idempotent?: boolean; execute?: (args: { n: number }) => Promise<string> } = {},
): AnyTool {
  return defineTool({
    name,
    description: name,
    parameters: z.object({ n: z.number() }),
    approval: 'never',
    ...(options.idempotent ? { idempotent: true } : {}),
    async execute(args) {
      runs.push(`${name} ${args.n}`);
      return options.execute ? options.execute(args) : `${name} ok ${args.n}`;
    },
  }) as AnyTool;
}

/** Hooks that hold every call of `held`; settlements are set by the test. */
function scriptedHooks(held: string[], decide?: (callId: string) => BeforeToolResult | undefined) {
  const settlements = new Map<string, Settlement>();
  const asked: string[] = [];
  const hooks: ToolHooks = {
    async beforeToolCall({ call, messageId, ctx }) {
      asked.push(call.id);
      const scripted = decide?.(call.id);
      if (scripted) return scripted;
      if (!held.includes(call.name)) return { allow: true };
      settlements.set(call.id, { pending: true });
      const approval = { id: `ap-${call.id}`, toolCallId: call.id, messageId, turnId: ctx.turnId } as unknown as ApprovalRecord;
      return { suspend: { approval, description: `run ${call.name}` } };
    },
    async settle(_turnId, calls) {
      return new Map(calls.flatMap((call) => (settlements.has(call.id) ? [[call.id, settlements.get(call.id)!] as const] : [])));
    },
  };
  return { hooks, settlements, asked };
}

function setup(
  script: ScriptedReply[],
  tools: AnyTool[],
  hooks: ToolHooks = scriptedHooks([]).hooks,
  options: { maxRecoveries?: number } = {},
) {
  const journal = new MemoryJournal();
  const model = new ScriptedModel(...script);
  const agent = new Agent({
    journal,
    llm: model,
    tools: new ToolRegistry(tools),
    hooks,
    settings: SETTINGS,
    prompt: { botName: 'Parley' },
    log: silentLogger,
    ...options,
  });
  const events: AgentEvent[] = [];
  const runOf = (started: ReturnType<MemoryJournal['begin']>): TurnRun => ({
    ...started,
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
  });
  return { journal, model, agent, events, runOf };
}

const roles = (journal: MemoryJournal, turnId = 't1') =>
  journal.forTurn(turnId).map((m) => (m.role === 'tool' ? `tool:${m.content}` : m.role));

describe('the agent loop on an in-memory journal', () => {
  it('runs three rounds, writing each step before the next, and records rounds and usage', async () => {
    const runs: string[] = [];
    const { journal, model, agent, events, runOf } = setup(
      [
        { toolCalls: [{ id: 'c1', name: 'count', arguments: { n: 1 } }] },
        { text: 'One more.', toolCalls: [{ id: 'c2', name: 'count', arguments: { n: 2 } }] },
        { text: 'Counted to two.', usage: { promptTokens: 30, completionTokens: 7 } },
      ],
      [counter('count', runs)],
    );
    const outcome = await agent.start(runOf(journal.begin('count to two')));
    expect(outcome).toEqual({ status: 'done', text: 'Counted to two.' });
    expect(runs).toEqual(['count 1', 'count 2']);
    expect(roles(journal)).toEqual(['user', 'assistant', 'tool:count ok 1', 'assistant', 'tool:count ok 2', 'assistant']);
    expect(journal.turn('t1')).toMatchObject({
      status: 'done',
      rounds: 3,
      usage: { promptTokens: 50, completionTokens: 17, totalTokens: 67 },
    });
    // A call's start is committed before it runs, its result after; the model sees every result.
    expect(journal.log).toEqual([
      'round',
      'append:assistant',
      'starts:c1',
      'append:tool:c1',
      'round',
      'append:assistant',
      'starts:c2',
      'append:tool:c2',
      'round',
      'append:assistant',
      'finish:done',
    ]);
    expect(model.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(events.map((e) => e.type)).toEqual([
      'turn_start',
      'tool_start',
      'tool_end',
      'message_delta',
      'tool_start',
      'tool_end',
      'message_delta',
      'answer_complete',
      'turn_end',
    ]);
  });

  it('writes no start record for a call of an idempotent tool (it may run again after a crash)', async () => {
    const runs: string[] = [];
    const { journal, agent, runOf } = setup(
      [
        {
          toolCalls: [
            { id: 'r', name: 'read', arguments: { n: 1 } },
            { id: 'w', name: 'write', arguments: { n: 2 } },
          ],
        },
        { text: 'Read and written.' },
      ],
      [counter('read', runs, { idempotent: true }), counter('write', runs)],
    );
    await agent.start(runOf(journal.begin('read, then write')));
    expect(runs.sort()).toEqual(['read 1', 'write 2']);
    expect(journal.log.filter((entry) => entry.startsWith('starts:'))).toEqual(['starts:w']);
  });

  it('runs idempotent calls no one has to decide on before their round is written, then writes the round and their results at once', async () => {
    const runs: string[] = [];
    let logAtRun: string[][] = [];
    const logged = (name: string, options: { idempotent?: boolean } = {}) =>
      counter(name, runs, {
        ...options,
        execute: async (args) => {
          logAtRun.push([...journal.log]);
          return `${name} ok ${args.n}`;
        },
      });
    const asked: string[] = [];
    const { hooks } = scriptedHooks([]);
    const deciding: ToolHooks = {
      ...hooks,
      async needsDecision({ call }) {
        asked.push(call.id);
        return call.name === 'gated_read';
      },
    };
    const { journal, agent, runOf } = setup(
      [
        {
          toolCalls: [
            { id: 'r1', name: 'read', arguments: { n: 1 } },
            { id: 'r2', name: 'read', arguments: { n: 2 } },
          ],
        },
        { toolCalls: [{ id: 'g1', name: 'gated_read', arguments: { n: 3 } }] },
        { toolCalls: [{ id: 'w1', name: 'write', arguments: { n: 4 } }] },
        { text: 'Done.' },
      ],
      [logged('read', { idempotent: true }), logged('gated_read', { idempotent: true }), logged('write')],
      deciding,
    );
    const started = journal.begin('read a lot');
    logAtRun = [];
    const outcome = await agent.start(runOf(started));
    expect(outcome.status).toBe('done');
    expect(runs.sort()).toEqual(['gated_read 3', 'read 1', 'read 2', 'write 4']);
    // The reads ran before anything of their round was written; then one write carried it all.
    expect(logAtRun[0]).toEqual([]);
    expect(logAtRun[1]).toEqual([]);
    expect(journal.log.slice(0, 4)).toEqual(['round', 'append:assistant', 'append:tool:r1', 'append:tool:r2']);
    expect(journal.relaxed.slice(0, 3)).toEqual(['append:assistant', 'append:tool:r1', 'append:tool:r2']);
    // A call someone may have to decide on, and one that must not run twice: written first, as before.
    expect(logAtRun[2]?.slice(4)).toEqual(['round', 'append:assistant']);
    expect(logAtRun[3]?.slice(-3)).toEqual(['round', 'append:assistant', 'starts:w1']);
    expect(asked).toEqual(['r1', 'r2', 'g1']);
    expect(journal.forTurn(started.turn.id).map((m) => `${m.role}:${m.toolCallId ?? m.content}`)).toEqual([
      'user:read a lot',
      'assistant:',
      'tool:r1',
      'tool:r2',
      'assistant:',
      'tool:g1',
      'assistant:',
      'tool:w1',
      'assistant:Done.',
    ]);
    expect(journal.turn(started.turn.id).rounds).toBe(4);
  });

  it('marks results relaxed only when every call that ran may run again (idempotent, or never run)', async () => {
    const runs: string[] = [];
    const { journal, agent, runOf } = setup(
      [
        { toolCalls: [{ id: 'r1', name: 'read', arguments: { n: 1 } }] },
        { toolCalls: [{ id: 'w1', name: 'write', arguments: { n: 2 } }] },
        {
          toolCalls: [
            { id: 'r2', name: 'read', arguments: { n: 3 } },
            { id: 'w2', name: 'write', arguments: { n: 4 } },
          ],
        },
        {
          toolCalls: [
            { id: 'bad', name: 'write', arguments: { n: 'not a number' } },
            { id: 'gone', name: 'no_such_tool', arguments: {} },
          ],
        },
        { text: 'Done.' },
      ],
      [counter('read', runs, { idempotent: true }), counter('write', runs)],
    );
    await agent.start(runOf(journal.begin('read and write')));
    expect(runs).toEqual(['read 1', 'write 2', 'read 3', 'write 4']);
    expect(journal.relaxed).toEqual(['append:tool:r1', 'append:tool:bad', 'append:tool:gone']);
  });

  it('runs the calls of one message concurrently and saves the results in call order', async () => {
    const runs: string[] = [];
    let secondStarted!: () => void;
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    // The first call finishes only once the second has started: run one after the other, it would time out.
    const slow = counter('slow', runs, {
      execute: async () => {
        await second;
        return 'slow done';
      },
    });
    const fast = counter('fast', runs, {
      execute: async () => {
        secondStarted();
        return 'fast done';
      },
    });
    const { journal, agent, runOf } = setup(
      [
        {
          toolCalls: [
            { id: 'a', name: 'slow', arguments: { n: 1 } },
            { id: 'b', name: 'fast', arguments: { n: 2 } },
          ],
        },
        { text: 'Both done.' },
      ],
      [slow, fast],
    );
    await agent.start(runOf(journal.begin('do both')));
    expect(roles(journal)).toEqual(['user', 'assistant', 'tool:slow done', 'tool:fast done', 'assistant']);
    expect(journal.log).toContain('starts:a,b');
  });

  it('asks the hooks once per call with valid arguments; a block becomes an error result and the turn goes on', async () => {
    const runs: string[] = [];
    const { hooks, asked } = scriptedHooks([], (id) => (id === 'x' ? { block: true, reason: 'Not run: blocked by a test.' } : undefined));
    const { journal, agent, runOf } = setup(
      [
        {
          toolCalls: [
            { id: 'x', name: 'count', arguments: { n: 1 } },
            { id: 'y', name: 'count', arguments: { n: 'two' } },
            { id: 'z', name: 'count', arguments: { n: 3 } },
          ],
        },
        { text: 'Partly done.' },
      ],
      [counter('count', runs)],
      hooks,
    );
    const outcome = await agent.start(runOf(journal.begin('count')));
    expect(outcome.status).toBe('done');
    expect(asked).toEqual(['x', 'z']);
    expect(runs).toEqual(['count 3']);
    const results = journal.forTurn('t1').filter((m) => m.role === 'tool');
    expect(results.map((m) => [m.toolCallId, m.isError])).toEqual([
      ['x', true],
      ['y', true],
      ['z', false],
    ]);
    expect(results[0]!.content).toBe('Not run: blocked by a test.');
  });

  it('suspends on a held call (free calls run first), then continues when it is released', async () => {
    const runs: string[] = [];
    const { hooks, settlements } = scriptedHooks(['danger']);
    const { journal, model, agent, events, runOf } = setup(
      [
        {
          text: 'Let me check.',
          toolCalls: [
            { id: 'd1', name: 'danger', arguments: { n: 1 } },
            { id: 's1', name: 'safe', arguments: { n: 2 } },
          ],
        },
        { text: 'Done, dangerously.' },
      ],
      [counter('danger', runs), counter('safe', runs)],
      hooks,
    );
    const run = runOf(journal.begin('go'));
    expect(await agent.start(run)).toEqual({ status: 'awaiting_approval', text: '' });
    expect(runs).toEqual(['safe 2']);
    expect(journal.turn('t1').status).toBe('awaiting_approval');
    expect(events.filter((e) => e.type === 'approval_requested')).toMatchObject([
      { approval: { toolCallId: 'd1' }, description: 'run danger' },
    ]);
    expect(events.some((e) => e.type === 'turn_end')).toBe(false);

    // Still pending: nothing happens.
    const rest = { signal: run.signal, emit: run.emit };
    expect(await agent.resume('t1', rest)).toBeUndefined();
    expect(model.requests).toHaveLength(1);

    settlements.set('d1', { run: true });
    expect(await agent.resume('t1', rest)).toEqual({ status: 'done', text: 'Done, dangerously.' });
    // A second resume finds nothing to do.
    expect(await agent.resume('t1', rest)).toBeUndefined();
    expect(runs).toEqual(['safe 2', 'danger 1']);
    expect(roles(journal)).toEqual(['user', 'assistant', 'tool:safe ok 2', 'tool:danger ok 1', 'assistant']);
    // The model sees the results in call order.
    expect(model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(['d1', 's1']);
  });

  it('a call settled with a result (denied) is answered with that text and never runs', async () => {
    const runs: string[] = [];
    const { hooks, settlements } = scriptedHooks(['danger']);
    const { journal, model, agent, runOf } = setup(
      [{ toolCalls: [{ id: 'd1', name: 'danger', arguments: { n: 1 } }] }, { text: 'Bob said no.' }],
      [counter('danger', runs)],
      hooks,
    );
    const run = runOf(journal.begin('go'));
    await agent.start(run);
    settlements.set('d1', { result: 'Not run: Bob denied this call: too risky.' });
    expect(await agent.resume('t1', { signal: run.signal, emit: run.emit })).toEqual({ status: 'done', text: 'Bob said no.' });
    expect(runs).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'd1',
      content: 'Not run: Bob denied this call: too risky.',
    });
  });

  it('continuing after a crash: a started call without a result is not run again (an idempotent one is), and the chat is told', async () => {
    const runs: string[] = [];
    const { journal, model, agent, events, runOf } = setup(
      [{ text: 'Recovered.' }],
      [counter('pay', runs), counter('note', runs, { idempotent: true })],
    );
    const started = journal.begin('pay and note');
    await journal.append([
      {
        sessionId: 's1',
        epoch: 0,
        turnId: 't1',
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'p', name: 'pay', arguments: '{"n":5}' },
          { id: 'n', name: 'note', arguments: '{"n":6}' },
        ],
      },
    ]);
    await journal.recordToolStarts('t1', [
      { id: 'p', name: 'pay' },
      { id: 'n', name: 'note' },
    ]);
    const outcome = await agent.continue(runOf(started));
    expect(outcome).toEqual({ status: 'done', text: 'Recovered.' });
    expect(runs).toEqual(['note 6']);
    const results = Object.fromEntries(journal.forTurn('t1').flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content]] : [])));
    expect(results).toEqual({ p: INTERRUPTED_RESULT, n: 'note ok 6' });
    expect(events.filter((e) => e.type === 'notice')).toMatchObject([
      { text: expect.stringContaining('I was interrupted while running pay') },
    ]);
    expect(model.requests).toHaveLength(1);
    expect(journal.recoveries.get('t1')).toBe(1);
  });

  it('a turn continued more than maxRecoveries times is given up without asking the model again', async () => {
    const { journal, model, agent, events, runOf } = setup([{ text: 'never asked' }], [], undefined, { maxRecoveries: 2 });
    const started = journal.begin('hello');
    journal.recoveries.set('t1', 2);
    const outcome = await agent.continue(runOf(started));
    expect(outcome.status).toBe('failed');
    expect(outcome.text).toMatch(/could not finish this answer/);
    expect(model.requests).toHaveLength(0);
    expect(journal.turn('t1')).toMatchObject({ status: 'failed', error: 'Gave up: continued 2 times without finishing' });
    expect(events.at(-1)).toMatchObject({ type: 'turn_end', status: 'failed' });
  });

  it('a storage failure leaves the turn running for recovery instead of marking it failed', async () => {
    const { journal, agent, events, runOf } = setup([{ text: 'An answer that cannot be written.' }], []);
    journal.failWrites = (what) => what === 'append:assistant';
    const outcome = await agent.start(runOf(journal.begin('hello')));
    expect(outcome.status).toBe('running');
    expect(journal.turn('t1').status).toBe('running');
    expect(journal.log).not.toContain('finish:failed');
    expect(events.at(-1)).toMatchObject({
      type: 'turn_end',
      status: 'running',
      text: expect.stringMatching(/lost the connection to my database/),
    });
  });
});
