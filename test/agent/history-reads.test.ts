// The conversation is read once per turn, not once per round (a 3-round turn in a long chat would
// otherwise read the whole history three times): later rounds see what the turn itself wrote, and
// steering messages (written by the gateway) make the next round read it again.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type TurnRun } from '../../src/agent/agent.ts';
import type { TurnJournal } from '../../src/agent/journal.ts';
import { type AnyTool, defineTool, ToolRegistry } from '../../src/agent/tools.ts';
import { estimateTokens } from '../../src/agent/tokens.ts';
import { silentLogger } from '../../src/log.ts';
import { MemoryJournal, ScriptedModel, type ScriptedReply, steeredOnce } from '../helpers/memory-journal.ts';

const SETTINGS = { maxRounds: 10, loopWarnAt: 3, loopStopAt: 5, toolTimeoutMs: 5_000, toolResultMaxChars: 16_000, contextTokens: 24_000 };

const count = defineTool({
  name: 'count',
  description: 'count',
  parameters: z.object({ n: z.number() }),
  approval: 'never',
  async execute(args) {
    return `counted ${args.n}`;
  },
}) as AnyTool;

const THREE_ROUNDS: ScriptedReply[] = [
  { toolCalls: [{ id: 'c1', name: 'count', arguments: { n: 1 } }] },
  { text: 'One more.', toolCalls: [{ id: 'c2', name: 'count', arguments: { n: 2 } }] },
  { text: 'Counted to two.' },
];

function setup(settings = SETTINGS, script = THREE_ROUNDS) {
  const journal = new MemoryJournal();
  const reads: number[] = [];
  const history = journal.history.bind(journal);
  journal.history = async (sessionId, epoch, fromId) => {
    const messages = await history(sessionId, epoch, fromId);
    reads.push(messages.length);
    return messages;
  };
  const model = new ScriptedModel(...script);
  const agent = new Agent({
    journal,
    llm: model,
    tools: new ToolRegistry([count]),
    hooks: { beforeToolCall: async () => ({ allow: true }), settle: async () => new Map() },
    settings,
    prompt: { botName: 'Parley' },
    log: silentLogger,
  });
  return { journal, model, agent, reads };
}

/** What each model request carried, as role:content (tool calls by id). */
function shapes(model: ScriptedModel): string[][] {
  return model.requests.map((request) =>
    request.messages
      .filter((m) => m.role !== 'system')
      .map(
        (m) => `${m.role}:${m.content ?? ''}${m.role === 'assistant' && m.toolCalls ? `[${m.toolCalls.map((c) => c.id).join(',')}]` : ''}`,
      ),
  );
}

describe('history reads per turn', () => {
  it('a 3-round turn reads the conversation once and still shows every round its own writes', async () => {
    const { journal, model, agent, reads } = setup();
    journal.append([{ sessionId: 's1', epoch: 0, role: 'user', content: 'earlier question' }]);
    journal.append([{ sessionId: 's1', epoch: 0, role: 'assistant', content: 'earlier answer' }]);
    const started = journal.begin('count to two');
    const run: TurnRun = { ...started, signal: new AbortController().signal, emit: () => {} };
    expect(await agent.start(run)).toEqual({ status: 'done', text: 'Counted to two.' });
    expect(reads).toEqual([3]);
    expect(shapes(model)).toEqual([
      ['user:earlier question', 'assistant:earlier answer', 'user:count to two'],
      ['user:earlier question', 'assistant:earlier answer', 'user:count to two', 'assistant:[c1]', 'tool:counted 1'],
      [
        'user:earlier question',
        'assistant:earlier answer',
        'user:count to two',
        'assistant:[c1]',
        'tool:counted 1',
        'assistant:One more.[c2]',
        'tool:counted 2',
      ],
    ]);
  });

  it('in a long chat, the next turn reads only from where the last context window started', async () => {
    const { journal, model, agent, reads } = setup({ ...SETTINGS, contextTokens: 1_000 }, [{ text: 'First.' }, { text: 'Second.' }]);
    for (let i = 0; i < 100; i++) {
      journal.append([{ sessionId: 's1', epoch: 0, turnId: `old${i}`, role: 'user', content: `question ${i} ${'x'.repeat(200)}` }]);
      journal.append([{ sessionId: 's1', epoch: 0, turnId: `old${i}`, role: 'assistant', content: `answer ${i} ${'y'.repeat(200)}` }]);
    }
    const first = journal.begin('one more', { turnId: 'n1' });
    await agent.start({ ...first, signal: new AbortController().signal, emit: () => {} });
    const second = journal.begin('and another', { turnId: 'n2' });
    await agent.start({ ...second, signal: new AbortController().signal, emit: () => {} });
    // The first turn read all 201 rows; the second only those of the last window (~1,000 tokens of ~55-token rows) and after.
    expect(reads[0]).toBe(201);
    expect(reads[1]).toBeLessThan(25);
    // What the model saw in the second turn ends with the newest exchanges, and fits the budget.
    const seen = model.requests[1]!.messages.filter((m) => m.role !== 'system').map((m) => m.content);
    expect(seen.slice(-3)).toEqual(['one more', 'First.', 'and another']);
  });

  it('over the budget, fits the window well inside it once, then later rounds and turns only add to it', async () => {
    const script: ScriptedReply[] = [
      { toolCalls: [{ id: 'c1', name: 'count', arguments: { n: 1 } }] },
      { text: 'First.' },
      ...['Second.', 'Third.', 'Fourth.'].map((text) => ({ text })),
    ];
    const { journal, model, agent } = setup({ ...SETTINGS, contextTokens: 1_000 }, script);
    for (let i = 0; i < 100; i++) {
      journal.append([{ sessionId: 's1', epoch: 0, turnId: `old${i}`, role: 'user', content: `question ${i} ${'x'.repeat(200)}` }]);
      journal.append([{ sessionId: 's1', epoch: 0, turnId: `old${i}`, role: 'assistant', content: `answer ${i} ${'y'.repeat(200)}` }]);
    }
    for (const [n, text] of ['one more', 'and another', 'a third', 'a fourth'].entries()) {
      const started = journal.begin(text, { turnId: `n${n}` });
      await agent.start({ ...started, signal: new AbortController().signal, emit: () => {} });
    }
    const sent = model.requests.map((request) => request.messages.filter((m) => m.role !== 'system'));
    expect(sent).toHaveLength(5);
    const tokens = (messages: (typeof sent)[number]) => messages.reduce((n, m) => n + estimateTokens(m.content ?? '') + 4, 0);
    // Fitted to about three quarters of the budget, then each request begins as the one before it did.
    expect(tokens(sent[0]!)).toBeLessThanOrEqual(750);
    expect(tokens(sent[0]!)).toBeGreaterThan(400);
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i]!.slice(0, sent[i - 1]!.length)).toEqual(sent[i - 1]);
      expect(tokens(sent[i]!)).toBeLessThanOrEqual(1_000);
    }
    expect(sent.at(-1)!.slice(-1)).toEqual([{ role: 'user', content: 'a fourth' }]);
  });

  it('a steering message makes the next round read the conversation again, and the model sees it', async () => {
    const { journal, model, agent, reads } = setup();
    const run = steeredOnce(journal, journal.begin('count to two'), 'and then stop');
    expect(await agent.start(run)).toEqual({ status: 'done', text: 'Counted to two.' });
    expect(reads).toHaveLength(2);
    expect(shapes(model)[1]).toEqual(['user:count to two', 'assistant:[c1]', 'tool:counted 1', 'user:and then stop']);
    expect(shapes(model)[2]).toEqual([
      'user:count to two',
      'assistant:[c1]',
      'tool:counted 1',
      'user:and then stop',
      'assistant:One more.[c2]',
      'tool:counted 2',
    ]);
  });

  it('skips the look for steering messages after a tool step whose results were written while none was queued', async () => {
    const { journal, agent } = setup();
    // Queued as the first results are written, none as the second: one look, after the first step.
    const seen = [true, false];
    const seeing: TurnJournal = journal;
    seeing.appendSeeingQueue = async (messages) => ({ records: await journal.append(messages), queued: seen.shift() ?? true });
    const started = journal.begin('count to two');
    let looks = 0;
    const run: TurnRun = {
      ...started,
      signal: new AbortController().signal,
      emit: () => {},
      takeSteering: async () => {
        looks++;
        return [];
      },
    };
    expect(await agent.start(run)).toEqual({ status: 'done', text: 'Counted to two.' });
    expect(looks).toBe(1);
    expect(seen).toEqual([]);
  });
});
