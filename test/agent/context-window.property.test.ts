// The history window: the agent reads the conversation only from contextStart on, so a long chat
// costs no more per turn than a short one. For any conversation (turns of questions, tool calls
// whose results come late or never, rows outside turns, steering, Chinese and Latin text) and any
// budget, the model must see exactly what it would see with the whole history.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, CUT_NOTE, contextStart, fitWindow, PRUNED } from '../../src/agent/context.ts';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from '../../src/agent/tokens.ts';
import type { MessageRecord } from '../../src/store/types.ts';

const text = fc.oneof(fc.string({ maxLength: 400 }), fc.constantFrom('短', '这是一个中文的问题，关于机器人', 'x'.repeat(2_000)));

type Draft = Omit<MessageRecord, 'id' | 'sessionId' | 'epoch' | 'isError' | 'createdAt'>;

/** A turn: a question, rounds of calls with their results (some missing), an answer; or a row outside turns. */
const turn = (n: number) =>
  fc
    .oneof(
      { weight: 5, arbitrary: fc.tuple(text, fc.array(fc.tuple(text, fc.boolean(), text), { maxLength: 3 }), text, fc.boolean()) },
      { weight: 1, arbitrary: text },
    )
    .map((shape): Draft[] => {
      if (typeof shape === 'string') return [{ role: 'summary', content: shape }];
      const [question, rounds, answer, steered] = shape;
      const turnId = `t${n}`;
      const rows: Draft[] = [{ turnId, role: 'user', content: question, senderName: 'Alice' }];
      rounds.forEach(([said, answered, result], r) => {
        const id = `c${n}-${r}`;
        rows.push({ turnId, role: 'assistant', content: said, toolCalls: [{ id, name: 'look', arguments: `{"q":"${r}"}` }] });
        if (answered) rows.push({ turnId, role: 'tool', content: result, toolCallId: id, toolName: 'look' });
        if (steered && r === 0) rows.push({ turnId, role: 'user', content: 'and also this' });
      });
      rows.push({ turnId, role: 'assistant', content: answer });
      return rows;
    });

const conversation = fc
  .integer({ min: 1, max: 25 })
  .chain((turns) => fc.tuple(...Array.from({ length: turns }, (_, n) => turn(n))))
  .map((turns) =>
    turns
      .flat()
      .map((draft, i): MessageRecord => ({ ...draft, id: 10 * (i + 1), sessionId: 's', epoch: 0, isError: false, createdAt: new Date(0) })),
  );

/** Some turns have context of their own (retrieved knowledge), some of it long. */
const turnContext = (turnId: string): string | undefined =>
  Number(turnId.slice(1)) % 3 === 0 ? undefined : Number(turnId.slice(1)) % 3 === 1 ? `<knowledge>${turnId}</knowledge>` : 'k'.repeat(900);

describe('context window', () => {
  it('builds the same context from contextStart on as from the whole history', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.integer({ min: 50, max: 6_000 }),
        fc.boolean(),
        fc.boolean(),
        (history, budgetTokens, group, context) => {
          const current = history.at(-1)!.turnId;
          const input = {
            systemPrompt: 'You are Parley.',
            budgetTokens,
            currentTurnId: current,
            labelSenders: group,
            ...(context ? { turnContext } : {}),
          };
          const start = contextStart(history, budgetTokens, current);
          const whole = buildContext({ ...input, history });
          const windowed = buildContext({ ...input, history: history.slice(start) });
          expect(windowed.messages).toEqual(whole.messages);
          expect(windowed.estimatedTokens).toBe(whole.estimatedTokens);
          // The current turn is always read whole.
          if (current)
            expect(history.slice(start).filter((m) => m.turnId === current)).toEqual(history.filter((m) => m.turnId === current));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('finds the same start when reads of the same rows were measured before (read again, longer, shorter, or with a row missing)', () => {
    const read = fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean());
    fc.assert(
      fc.property(
        conversation,
        fc.integer({ min: 50, max: 6_000 }),
        fc.array(read, { minLength: 1, maxLength: 8 }),
        (rows, budgetTokens, reads) => {
          for (const [a, b, c, dropOne] of reads) {
            // Reads from the same row share their first row object (as the history cache hands them
            // out); they start at one of a few turns, so that many reads do.
            const firsts = [0, ...rows.flatMap((row, i) => (i > 0 && row.turnId !== rows[i - 1]!.turnId ? [i] : []))].slice(0, 3);
            const from = firsts[a % firsts.length]!;
            let history = rows.slice(from, from + 1 + (b % (rows.length - from)));
            if (dropOne && history.length > 2) history = history.filter((_, i) => i !== 1 + (c % (history.length - 1)));
            const current = history.at(-1)!.turnId;
            // Copies of the rows: nothing measured before can be reused for them.
            const fresh = history.map((row) => ({ ...row }));
            // Besides the given budget, ones that the rows from some point on just exceed: from the
            // first turns after the first one (the start then moves), and further on.
            const suffix: number[] = [];
            for (let i = history.length - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + leastTokens(history[i]!);
            const turnStarts = history.flatMap((row, i) => (i > 0 && row.turnId !== history[i - 1]!.turnId ? [i] : []));
            const points = [...turnStarts.slice(0, 3), ...[0.5, 1].map((q) => Math.floor(q * (history.length - 1)))];
            const budgets = [budgetTokens, ...points.map((i) => suffix[i]! - 1)];
            for (const budget of budgets) {
              expect(contextStart(history, budget, current)).toBe(contextStart(fresh, budget, current));
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('does not reuse what a read with a row missing measured for a later read that has the row', () => {
    const row = (id: number, turnId: string, role: 'user' | 'assistant', content: string): MessageRecord => ({
      id,
      sessionId: 's',
      epoch: 0,
      turnId,
      role,
      content,
      isError: false,
      createdAt: new Date(0),
    });
    const rows = [
      row(1, 't0', 'user', 'a'),
      row(2, 't0', 'assistant', 'b'),
      row(3, 't1', 'user', 'x'.repeat(2_000)),
      row(4, 't1', 'assistant', 'c'),
      row(5, 't2', 'user', 'd'),
      row(6, 't2', 'assistant', 'e'),
      row(7, 't3', 'user', 'f'),
    ];
    // Over the budget only with the long question: the window then starts at its turn.
    const budget = rows.slice(3).reduce((n, r) => n + leastTokens(r), 0) + 100;
    contextStart([rows[0]!, rows[1]!, rows[3]!, rows[4]!], budget);
    expect(contextStart(rows, budget, 't3')).toBe(2);
  });

  it('a window fitted below the budget builds what fitting to that target builds, and only grows while the conversation fits', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.integer({ min: 50, max: 6_000 }),
        fc.double({ min: 0.3, max: 0.95, noNaN: true }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        fc.boolean(),
        (rows, budgetTokens, share, later, group, context) => {
          // The last `later` turns arrive after the window was fitted.
          const starts = rows.flatMap((m, i) => (i > 0 && m.turnId !== rows[i - 1]!.turnId ? [i] : []));
          const cut = starts.at(-later) ?? rows.length;
          const before = rows.slice(0, cut);
          const current = before.at(-1)!.turnId;
          const input = {
            systemPrompt: 'You are Parley.',
            budgetTokens,
            currentTurnId: current,
            labelSenders: group,
            ...(context ? { turnContext } : {}),
          };
          const target = Math.floor(budgetTokens * share);
          const window = fitWindow({ ...input, history: before }, target);
          const from = before.findIndex((m) => m.id === window.fromId);
          expect(from).toBeGreaterThanOrEqual(0);
          const kept = buildContext({ ...input, history: before.slice(from), pruned: window.pruned });
          const fitted = buildContext({ ...input, history: before, budgetTokens: target });
          // A window is fitted around a current turn that fits the target (else its message is cut to the budget).
          fc.pre(![...fitted.messages, ...kept.messages].some((m) => m.content.endsWith(CUT_NOTE)));
          expect(kept.messages).toEqual(fitted.messages);
          expect(kept.estimatedTokens).toBe(fitted.estimatedTokens);
          // Turns that arrive later are added at the end, as long as nothing has to be fitted.
          const grown = buildContext({ ...input, history: rows.slice(from), pruned: window.pruned });
          const grownFits =
            grown.droppedTurns === 0 &&
            grown.prunedToolResults === 0 &&
            grown.prunedTurnContexts === 0 &&
            !grown.messages.some((m) => m.content.endsWith(CUT_NOTE));
          if (grownFits) {
            expect(grown.messages.slice(0, kept.messages.length)).toEqual(kept.messages);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps the newest turn whole when it alone is over the budget and is not the current one', () => {
    const rows = ['question', 'a'.repeat(4_000), 'b'.repeat(4_000), 'c'.repeat(4_000)].map(
      (content, i): MessageRecord => ({
        id: i + 1,
        sessionId: 's',
        epoch: 0,
        turnId: i === 0 ? 't0' : 't1',
        role: i < 2 ? 'user' : 'assistant',
        content,
        isError: false,
        createdAt: new Date(0),
      }),
    );
    const input = { systemPrompt: 'sys', budgetTokens: 1_500, labelSenders: false };
    const start = contextStart(rows, 1_500);
    expect(start).toBe(1);
    expect(buildContext({ ...input, history: rows.slice(start) }).messages).toEqual(buildContext({ ...input, history: rows }).messages);
  });

  it('starts late in a long conversation: the window holds about a budget of text, not the whole chat', () => {
    const history: MessageRecord[] = Array.from({ length: 2_000 }, (_, i) => ({
      id: i + 1,
      sessionId: 's',
      epoch: 0,
      turnId: `t${Math.floor(i / 2)}`,
      role: i % 2 ? 'assistant' : 'user',
      content: 'a'.repeat(400),
      isError: false,
      createdAt: new Date(0),
    }));
    // 400 characters ≈ 100 tokens + overhead: a 10,000-token budget needs under 100 rows.
    const start = contextStart(history, 10_000, 't999');
    expect(history.length - start).toBeGreaterThan(90);
    expect(history.length - start).toBeLessThan(110);
  });
});

/** The least a row can cost in the context (every tool result pruned), as src/agent/context.ts counts it. */
function leastTokens(row: MessageRecord): number {
  if (row.role === 'tool') return MESSAGE_OVERHEAD_TOKENS + estimateTokens(PRUNED);
  const calls = row.toolCalls ?? [];
  return MESSAGE_OVERHEAD_TOKENS + estimateTokens(row.content) + calls.reduce((n, c) => n + estimateTokens(c.name + c.arguments), 0);
}
