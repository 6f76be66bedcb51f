// The history window: the agent reads the conversation only from contextStart on, so a long chat
// costs no more per turn than a short one. For any conversation (turns of questions, tool calls
// whose results come late or never, rows outside turns, steering, Chinese and Latin text) and any
// budget, the model must see exactly what it would see with the whole history.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, contextStart, fitWindow } from '../../src/agent/context.ts';
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

describe('context window', () => {
  it('builds the same context from contextStart on as from the whole history', () => {
    fc.assert(
      fc.property(conversation, fc.integer({ min: 50, max: 6_000 }), fc.boolean(), (history, budgetTokens, group) => {
        const current = history.at(-1)!.turnId;
        const input = { systemPrompt: 'You are Parley.', budgetTokens, currentTurnId: current, labelSenders: group };
        const start = contextStart(history, budgetTokens, current);
        const whole = buildContext({ ...input, history });
        const windowed = buildContext({ ...input, history: history.slice(start) });
        expect(windowed.messages).toEqual(whole.messages);
        expect(windowed.estimatedTokens).toBe(whole.estimatedTokens);
        // The current turn is always read whole.
        if (current) expect(history.slice(start).filter((m) => m.turnId === current)).toEqual(history.filter((m) => m.turnId === current));
      }),
      { numRuns: 400 },
    );
  });

  it('a window fitted below the budget builds what fitting to that target builds, and only grows while the conversation fits', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.integer({ min: 50, max: 6_000 }),
        fc.double({ min: 0.3, max: 0.95, noNaN: true }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        (rows, budgetTokens, share, later, group) => {
          // The last `later` turns arrive after the window was fitted.
          const starts = rows.flatMap((m, i) => (i > 0 && m.turnId !== rows[i - 1]!.turnId ? [i] : []));
          const cut = starts.at(-later) ?? rows.length;
          const before = rows.slice(0, cut);
          const current = before.at(-1)!.turnId;
          const input = { systemPrompt: 'You are Parley.', budgetTokens, currentTurnId: current, labelSenders: group };
          const target = Math.floor(budgetTokens * share);
          const window = fitWindow({ ...input, history: before }, target);
          const from = before.findIndex((m) => m.id === window.fromId);
          expect(from).toBeGreaterThanOrEqual(0);
          const kept = buildContext({ ...input, history: before.slice(from), pruned: window.pruned });
          const fitted = buildContext({ ...input, history: before, budgetTokens: target });
          expect(kept.messages).toEqual(fitted.messages);
          expect(kept.estimatedTokens).toBe(fitted.estimatedTokens);
          // Turns that arrive later are added at the end, as long as nothing has to be fitted.
          const grown = buildContext({ ...input, history: rows.slice(from), pruned: window.pruned });
          if (grown.droppedTurns === 0 && grown.prunedToolResults === 0) {
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
