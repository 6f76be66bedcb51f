// What the model sees does not depend on what was built before: the messages each history row
// becomes are kept with the row and reused by later rounds and turns (src/agent/context.ts), and
// must give exactly what building everything afresh gives. The reference below is the builder as it
// was before it kept anything (each call converts and measures every row anew, and prunes in place).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, type ContextInput, CUT_NOTE, MISSING_RESULT, PRUNED } from '../../src/agent/context.ts';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS, truncateToTokens } from '../../src/agent/tokens.ts';
import { speakerName } from '../../src/core/speaker-name.ts';
import type { ChatMessage, ToolCall } from '../../src/llm/types.ts';
import type { MessageRecord } from '../../src/store/types.ts';

interface Block {
  turnId: string | undefined;
  messages: ChatMessage[];
}

/** Placeholders of calls whose result never came: never pruned (they are no row). */
const placeholders = new WeakSet<object>();
/** User messages shown with their turn's context, and their content without it. */
const withContext = new WeakMap<object, string>();

function userContent(message: MessageRecord, labelSenders: boolean): string {
  return labelSenders && message.senderName ? `[${speakerName(message.senderName)}] ${message.content}` : message.content;
}

/**
 * Turns history rows into blocks of chat messages, one block per turn. A tool result is placed
 * right after the nearest earlier assistant message that made that call, in call order, whenever
 * it was written (results of approved calls are written long after the call). A call without a
 * result gets a placeholder, so the model API always sees a complete exchange.
 */
function toBlocks(history: MessageRecord[], labelSenders: boolean, turnContext: ContextInput['turnContext']): Block[] {
  const blocks: Block[] = [];
  const awaiting = new Map<string, { content: string }>();

  for (const message of history) {
    if (message.role === 'tool') {
      const slot = message.toolCallId ? awaiting.get(message.toolCallId) : undefined;
      if (slot) {
        slot.content = message.content;
        placeholders.delete(slot);
        awaiting.delete(message.toolCallId!);
      }
      continue;
    }
    let block = blocks.at(-1);
    if (!block || block.turnId !== message.turnId || message.turnId === undefined) {
      block = { turnId: message.turnId, messages: [] };
      blocks.push(block);
    }
    if (message.role === 'user') {
      const content = userContent(message, labelSenders);
      const context = block.messages.length === 0 && block.turnId !== undefined ? turnContext?.(block.turnId) : undefined;
      const shown = { role: 'user' as const, content: context ? `${content}\n\n${context}` : content };
      if (context) withContext.set(shown, content);
      block.messages.push(shown);
    } else if (message.role === 'summary') {
      block.messages.push({ role: 'system', content: `Summary of the earlier conversation:\n${message.content}` });
    } else {
      const calls: ToolCall[] = message.toolCalls ?? [];
      block.messages.push({ role: 'assistant', content: message.content, ...(calls.length ? { toolCalls: calls } : {}) });
      for (const call of calls) {
        const slot: ChatMessage & { role: 'tool' } = { role: 'tool', toolCallId: call.id, content: MISSING_RESULT };
        block.messages.push(slot);
        placeholders.add(slot);
        awaiting.set(call.id, slot);
      }
    }
  }
  return blocks;
}

function messageTokens(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
  return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content) + calls.reduce((n, c) => n + estimateTokens(c.name + c.arguments), 0);
}

function blockTokens(block: Block): number {
  return block.messages.reduce((n, m) => n + messageTokens(m), 0);
}

interface BuiltContext {
  messages: ChatMessage[];
  estimatedTokens: number;
  prunedToolResults: number;
  prunedTurnContexts: number;
  droppedTurns: number;
}

function referenceContext(input: ContextInput): BuiltContext {
  const blocks = toBlocks(input.history, input.labelSenders, input.turnContext);
  const system: ChatMessage = { role: 'system', content: input.systemPrompt };
  const trailing: ChatMessage[] = input.trailingSystem ? [{ role: 'system', content: input.trailingSystem }] : [];
  const fixed = messageTokens(system) + trailing.reduce((n, m) => n + messageTokens(m), 0);
  const isCurrent = (block: Block) => input.currentTurnId !== undefined && block.turnId === input.currentTurnId;

  let total = fixed + blocks.reduce((n, b) => n + blockTokens(b), 0);
  let prunedToolResults = 0;
  let prunedTurnContexts = 0;
  for (const block of blocks) {
    if (total <= input.budgetTokens) break;
    if (isCurrent(block)) continue;
    for (const message of block.messages) {
      if (total <= input.budgetTokens) break;
      const plain = withContext.get(message);
      if (plain !== undefined) {
        const before = messageTokens(message);
        message.content = plain;
        withContext.delete(message);
        total -= before - messageTokens(message);
        prunedTurnContexts++;
        continue;
      }
      if (message.role !== 'tool' || message.content === PRUNED || placeholders.has(message)) continue;
      const before = messageTokens(message);
      message.content = PRUNED;
      total -= before - messageTokens(message);
      prunedToolResults++;
    }
  }
  let droppedTurns = 0;
  while (total > input.budgetTokens) {
    const index = blocks.findIndex((b) => !isCurrent(b));
    // Keep at least the newest block even when it alone is over budget.
    if (index < 0 || index === blocks.length - 1) break;
    total -= blockTokens(blocks[index]!);
    blocks.splice(index, 1);
    droppedTurns++;
  }
  // Still over with only the current turn left: its user messages are cut, the longest first.
  const current = blocks.find(isCurrent);
  if (total > input.budgetTokens && current) {
    const users = current.messages.filter((m) => m.role === 'user').sort((a, b) => messageTokens(b) - messageTokens(a));
    for (const message of users) {
      if (total <= input.budgetTokens) break;
      const before = messageTokens(message);
      const room = before - (total - input.budgetTokens) - MESSAGE_OVERHEAD_TOKENS - estimateTokens(CUT_NOTE);
      const cut = truncateToTokens(message.content, Math.max(0, room), CUT_NOTE);
      if (messageTokens({ role: 'user', content: cut }) >= before) continue;
      message.content = cut;
      total -= before - messageTokens(message);
    }
  }
  return {
    messages: [system, ...blocks.flatMap((b) => b.messages), ...trailing],
    estimatedTokens: total,
    prunedToolResults,
    prunedTurnContexts,
    droppedTurns,
  };
}

/** Some turns have context of their own (retrieved knowledge), one long; the same function throughout, as the agent's. */
const turnContext = (turnId: string): string | undefined =>
  Number(turnId.slice(1)) % 3 === 0 ? undefined : Number(turnId.slice(1)) % 3 === 1 ? `<knowledge>${turnId}</knowledge>` : 'k'.repeat(800);

const text = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('短', '这是一个中文的问题', 'x'.repeat(1_500), PRUNED));

type Draft = Omit<MessageRecord, 'id' | 'sessionId' | 'epoch' | 'isError' | 'createdAt'>;

/** Turns of a question, rounds of calls (results missing, late, or with a reused call id), an answer; or a summary. */
const turn = (n: number) =>
  fc
    .oneof(
      {
        weight: 5,
        arbitrary: fc.tuple(
          text,
          fc.array(fc.tuple(text, fc.constantFrom('now', 'late', 'never'), text, fc.boolean()), { maxLength: 3 }),
          text,
        ),
      },
      { weight: 1, arbitrary: text },
    )
    .map((shape): Draft[] => {
      if (typeof shape === 'string') return [{ role: 'summary', content: shape }];
      const [question, rounds, answer] = shape;
      const turnId = `t${n}`;
      const rows: Draft[] = [{ turnId, role: 'user', content: question, senderName: n % 2 ? 'Alice' : undefined }];
      const late: Draft[] = [];
      rounds.forEach(([said, when, result, reuse], r) => {
        const id = reuse ? 'call_0' : `c${n}-${r}`;
        rows.push({ turnId, role: 'assistant', content: said, toolCalls: [{ id, name: 'look', arguments: `{"q":"${r}"}` }] });
        const row: Draft = { turnId, role: 'tool', content: result, toolCallId: id, toolName: 'look' };
        if (when === 'now') rows.push(row);
        if (when === 'late') late.push(row);
      });
      rows.push({ turnId, role: 'assistant', content: answer }, ...late);
      return rows;
    });

const conversation = fc
  .integer({ min: 1, max: 20 })
  .chain((turns) => fc.tuple(...Array.from({ length: turns }, (_, n) => turn(n))))
  .map((turns) =>
    turns
      .flat()
      .map((draft, i): MessageRecord => ({ ...draft, id: i + 1, sessionId: 's', epoch: 0, isError: false, createdAt: new Date(0) })),
  );

describe('context built from kept messages', () => {
  it('is what building afresh gives, round after round, in any order of budgets and labels', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.array(
          fc.tuple(
            fc.integer({ min: 20, max: 5_000 }),
            fc.boolean(),
            fc.boolean(),
            fc.constantFrom('longer', 'any length', 'one row rewritten'),
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.boolean(),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        (history, builds) => {
          // Mostly each build sees a longer prefix (a later round or turn), with its own budget: the
          // rows are the same objects throughout, as the history cache hands them out. Sometimes a
          // shorter one, or one whose row was read again with other content (same first row).
          builds.forEach(([budgetTokens, labelSenders, trailing, kind, at, withTurnContext], b) => {
            const grown = Math.max(1, Math.ceil((history.length * (b + 1)) / builds.length));
            let rows = history.slice(0, kind === 'longer' ? grown : Math.max(1, Math.ceil(history.length * at)));
            if (kind === 'one row rewritten') {
              const index = Math.floor(at * (rows.length - 1));
              rows = rows.map((row, i) => (i === index ? { ...row, content: `${row.content} (edited)` } : row));
            }
            const input: ContextInput = {
              systemPrompt: 'You are Parley.',
              history: rows,
              budgetTokens,
              currentTurnId: rows.at(-1)!.turnId,
              labelSenders,
              ...(trailing ? { trailingSystem: 'Answer now.' } : {}),
              ...(withTurnContext ? { turnContext } : {}),
            };
            const { turnContext: context, ...data } = input;
            expect(buildContext(input)).toEqual(
              referenceContext({ ...structuredClone(data), ...(context ? { turnContext: context } : {}) }),
            );
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a pruned build leaves the kept messages whole for the next build with room for them', () => {
    const rows: MessageRecord[] = [
      { id: 1, turnId: 't0', role: 'user', content: 'first' },
      { id: 2, turnId: 't0', role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'look', arguments: '{}' }] },
      { id: 3, turnId: 't0', role: 'tool', content: 'r'.repeat(2_000), toolCallId: 'a', toolName: 'look' },
      { id: 4, turnId: 't0', role: 'assistant', content: 'done' },
      { id: 5, turnId: 't1', role: 'user', content: 'second' },
    ].map((row) => ({ ...row, sessionId: 's', epoch: 0, isError: false, createdAt: new Date(0) }) as MessageRecord);
    const input = { systemPrompt: 'S', history: rows, currentTurnId: 't1', labelSenders: false };
    const tight = buildContext({ ...input, budgetTokens: 100 });
    expect(tight.prunedToolResults).toBe(1);
    expect(tight.messages.find((m) => m.role === 'tool')?.content).toBe(PRUNED);
    const roomy = buildContext({ ...input, budgetTokens: 10_000 });
    expect(roomy.prunedToolResults).toBe(0);
    expect(roomy.messages.find((m) => m.role === 'tool')?.content).toBe('r'.repeat(2_000));
    expect(buildContext({ ...input, history: rows.slice(0, 2), budgetTokens: 10_000 }).messages.at(-1)?.content).toBe(MISSING_RESULT);
  });
});
