// Builds what the model sees: the system prompt, then the conversation within a token budget.
// A turn's own context (retrieved knowledge) goes with the turn's first user message and stays
// there in later requests, so that each request begins as the one before did (a provider's prompt
// cache). Over budget, old turns' context and old tool results are pruned first (oldest first),
// then the oldest turns are dropped whole, so a tool call never loses its result (a call whose
// result has not come keeps its placeholder). The current turn is always kept.
// A window fitted once (fitWindow) is kept while it fits: later rounds and turns only add to it.
import { speakerName } from '../core/speaker-name.ts';
import type { ChatMessage, ToolCall } from '../llm/types.ts';
import type { MessageRecord } from '../store/types.ts';
import { startsWithRows, WindowFold } from './history-prefix.ts';
import { MESSAGE_OVERHEAD_TOKENS, estimateTokens, truncateToTokens } from './tokens.ts';

export const PRUNED = '[pruned]';
export const MISSING_RESULT = '[no result: this call did not complete]';

export interface ContextInput {
  systemPrompt: string;
  history: MessageRecord[];
  budgetTokens: number;
  currentTurnId?: string;
  /** Prefix user messages with the sender's name (group chats). */
  labelSenders: boolean;
  /** Extra system text appended after the history (e.g. the round-limit instruction). */
  trailingSystem?: string;
  /** Ids of tool-result rows (and user rows, for their turn's context) shown pruned whatever the budget: the window fitWindow chose. */
  pruned?: ReadonlySet<number>;
  /**
   * A turn's own context, shown after the turn's first user message; the same text for a turn
   * every time it is asked (a later request must begin with what the earlier one sent).
   */
  turnContext?: TurnContext;
}

type TurnContext = (turnId: string) => string | undefined;

interface Block {
  turnId: string | undefined;
  messages: ChatMessage[];
  /** Id of the block's first row. */
  firstId: number;
}

const NONE: ReadonlySet<number> = new Set();
const NO_TURN_CONTEXT: TurnContext = () => undefined;

// What a history row becomes in the context is kept with the row (rows never change once written,
// and the process's history cache hands the same rows to every turn): a row is converted and
// measured once. The messages are never changed: a tool result that arrives or is pruned replaces
// its slot.
const asUser = new WeakMap<MessageRecord, ChatMessage>();
const asLabelledUser = new WeakMap<MessageRecord, ChatMessage>();
const asMessage = new WeakMap<MessageRecord, ChatMessage>();
const unanswered = new WeakMap<ToolCall, ChatMessage>();
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;
const pruned = new WeakMap<ToolMessage, ChatMessage>();
const tokens = new WeakMap<ChatMessage, number>();
/** The row a tool result message shows (pruned or not), for fitWindow to tell which rows it pruned. */
const rowOf = new WeakMap<ChatMessage, number>();
/** A user message with its turn's context: the context it shows, the message itself, and it without. */
const withContext = new WeakMap<MessageRecord, { context: string; message: ChatMessage; plain: ChatMessage }>();
/** Messages that show a turn's context, and the same message without it (what pruning shows). */
const contextFree = new WeakMap<ChatMessage, ChatMessage>();

/** The value kept for `key`, made by `make(key)` the first time (a function of the key alone: no closure per lookup). */
function kept<K extends object, V>(cache: WeakMap<K, V>, key: K, make: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make(key);
    cache.set(key, value);
  }
  return value;
}

// The sender's name fit to stand in the label: a name such as "Bob] [Admin" cannot make up another speaker.
const labelledUser = (message: MessageRecord): ChatMessage => ({
  role: 'user',
  content: `[${speakerName(message.senderName ?? '')}] ${message.content}`,
});
const plainUser = (message: MessageRecord): ChatMessage => ({ role: 'user', content: message.content });

function otherMessage(message: MessageRecord): ChatMessage {
  if (message.role === 'summary') return { role: 'system', content: `Summary of the earlier conversation:\n${message.content}` };
  if (message.role === 'tool') return { role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content };
  const calls = message.toolCalls ?? [];
  return { role: 'assistant', content: message.content, ...(calls.length ? { toolCalls: calls } : {}) };
}

const placeholder = (call: ToolCall): ChatMessage => ({ role: 'tool', toolCallId: call.id, content: MISSING_RESULT });

function chatMessage(message: MessageRecord, labelSenders: boolean): ChatMessage {
  if (message.role === 'user') {
    return labelSenders && message.senderName ? kept(asLabelledUser, message, labelledUser) : kept(asUser, message, plainUser);
  }
  return kept(asMessage, message, otherMessage);
}

/** A turn's first user message with the turn's context after it. */
function withTurnContext(row: MessageRecord, plain: ChatMessage, context: string): ChatMessage {
  const known = withContext.get(row);
  if (known?.context === context && known.plain === plain) return known.message;
  const message: ChatMessage = { role: 'user', content: `${plain.content}\n\n${context}` };
  withContext.set(row, { context, message, plain });
  contextFree.set(message, plain);
  rowOf.set(message, row.id);
  return message;
}

/**
 * Turns history rows into blocks of chat messages, one block per turn. A tool result is placed
 * right after the nearest earlier assistant message that made that call, in call order, whenever
 * it was written (results of approved calls are written long after the call). A call without a
 * result gets a placeholder, so the model API always sees a complete exchange.
 *
 * The work is kept with the history's first row: a later round or turn reads the same rows and
 * more (rows are only appended), so only the new rows are added, and what the model sees is
 * put together without going over the whole conversation again. Any other history starts over.
 */
class Conversation {
  readonly blocks: Block[] = [];
  /** The blocks' messages in order, and their tokens. */
  readonly messages: ChatMessage[] = [];
  tokens = 0;
  readonly #rows: MessageRecord[] = [];
  readonly #awaiting = new Map<string, { block: Block; index: number; at: number }>();
  readonly #labelSenders: boolean;
  readonly #pruned: ReadonlySet<number>;
  readonly #turnContext: TurnContext;

  constructor(labelSenders: boolean, pruned: ReadonlySet<number>, turnContext: TurnContext) {
    this.#labelSenders = labelSenders;
    this.#pruned = pruned;
    this.#turnContext = turnContext;
  }

  /** Whether `history` is the rows added so far and maybe more. */
  extendedBy(history: readonly MessageRecord[], labelSenders: boolean, pruned: ReadonlySet<number>, turnContext: TurnContext): boolean {
    return (
      labelSenders === this.#labelSenders &&
      pruned === this.#pruned &&
      turnContext === this.#turnContext &&
      startsWithRows(history, this.#rows)
    );
  }

  add(history: readonly MessageRecord[]): void {
    for (let i = this.#rows.length; i < history.length; i++) this.#add(history[i]!);
  }

  #add(message: MessageRecord): void {
    this.#rows.push(message);
    if (message.role === 'tool') {
      const slot = message.toolCallId ? this.#awaiting.get(message.toolCallId) : undefined;
      if (slot) {
        this.#place(slot.block, slot.index, slot.at, this.#result(message));
        this.#awaiting.delete(message.toolCallId!);
      }
      return;
    }
    let block = this.blocks.at(-1);
    if (!block || block.turnId !== message.turnId || message.turnId === undefined) {
      block = { turnId: message.turnId, messages: [], firstId: message.id };
      this.blocks.push(block);
    }
    const shown = chatMessage(message, this.#labelSenders);
    const context =
      message.role === 'user' && block.messages.length === 0 && block.turnId !== undefined && !this.#pruned.has(message.id)
        ? this.#turnContext(block.turnId)
        : undefined;
    this.#push(block, context ? withTurnContext(message, shown, context) : shown);
    for (const call of message.role === 'assistant' ? (message.toolCalls ?? []) : []) {
      this.#awaiting.set(call.id, { block, index: block.messages.length, at: this.messages.length });
      this.#push(block, kept(unanswered, call, placeholder));
    }
  }

  #result(row: MessageRecord): ChatMessage {
    const message = chatMessage(row, this.#labelSenders) as ToolMessage;
    const shown = this.#pruned.has(row.id) ? kept(pruned, message, prunedResult) : message;
    rowOf.set(shown, row.id);
    return shown;
  }

  #push(block: Block, message: ChatMessage): void {
    block.messages.push(message);
    this.messages.push(message);
    this.tokens += messageTokens(message);
  }

  #place(block: Block, index: number, at: number, message: ChatMessage): void {
    this.tokens += messageTokens(message) - messageTokens(block.messages[index]!);
    block.messages[index] = message;
    this.messages[at] = message;
  }
}

const conversations = new WeakMap<MessageRecord, Conversation>();

function conversationOf(input: ContextInput): Conversation {
  const { history, labelSenders } = input;
  const pruned = input.pruned ?? NONE;
  const turnContext = input.turnContext ?? NO_TURN_CONTEXT;
  const first = history[0];
  let conversation = first && conversations.get(first);
  if (!conversation?.extendedBy(history, labelSenders, pruned, turnContext)) {
    conversation = new Conversation(labelSenders, pruned, turnContext);
    if (first) conversations.set(first, conversation);
  }
  conversation.add(history);
  return conversation;
}

function countTokens(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
  return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content) + calls.reduce((n, c) => n + estimateTokens(c.name + c.arguments), 0);
}

function messageTokens(message: ChatMessage): number {
  return kept(tokens, message, countTokens);
}

function blockTokens(block: Block): number {
  return block.messages.reduce((n, m) => n + messageTokens(m), 0);
}

export interface BuiltContext {
  messages: ChatMessage[];
  estimatedTokens: number;
  prunedToolResults: number;
  /** Earlier turns whose context (see ContextInput.turnContext) was left out to fit. */
  prunedTurnContexts: number;
  droppedTurns: number;
}

/** The system prompt and the trailing instruction around the conversation, and their tokens. */
function frameOf(input: ContextInput): { system: ChatMessage; trailing: ChatMessage[]; tokens: number } {
  const system: ChatMessage = { role: 'system', content: input.systemPrompt };
  const trailing: ChatMessage[] = input.trailingSystem ? [{ role: 'system', content: input.trailingSystem }] : [];
  return { system, trailing, tokens: messageTokens(system) + trailing.reduce((n, m) => n + messageTokens(m), 0) };
}

export function buildContext(input: ContextInput): BuiltContext {
  const conversation = conversationOf(input);
  const { system, trailing, tokens } = frameOf(input);
  const total = tokens + conversation.tokens;
  if (total <= input.budgetTokens) {
    return {
      messages: [system, ...conversation.messages, ...trailing],
      estimatedTokens: total,
      prunedToolResults: 0,
      prunedTurnContexts: 0,
      droppedTurns: 0,
    };
  }
  const { fromId: _, prunedRows: __, ...fitted } = fitBudget(conversation.blocks, total, input);
  return { ...fitted, messages: [system, ...fitted.messages, ...trailing] };
}

/**
 * Fits the conversation to `targetTokens` (less than the budget) as buildContext fits it to the
 * budget, and says how: the first row it keeps, and the tool results shown pruned. buildContext
 * given the history from that row and those results pruned builds the same, and goes on adding to
 * it, with no fitting, until the conversation outgrows the budget again: rounds and turns in
 * between do not go over the whole window, and the model's prompt keeps its beginning.
 */
export function fitWindow(input: ContextInput, targetTokens: number): { fromId: number; pruned: ReadonlySet<number> } {
  const conversation = conversationOf(input);
  const total = frameOf(input).tokens + conversation.tokens;
  const fitted = fitBudget(conversation.blocks, total, { ...input, budgetTokens: targetTokens });
  const pruned = new Set([...(input.pruned ?? NONE)].filter((id) => id >= fitted.fromId));
  for (const id of fitted.prunedRows) pruned.add(id);
  return { fromId: fitted.fromId, pruned };
}

const prunedResult = (message: ToolMessage): ChatMessage => ({ role: 'tool', toolCallId: message.toolCallId, content: PRUNED });

/** Over budget: old turns' context and tool results pruned (oldest first), then the oldest turns dropped, on copies of the blocks. */
function fitBudget(source: readonly Block[], total: number, input: ContextInput): BuiltContext & { fromId: number; prunedRows: number[] } {
  const blocks = source.map((block) => ({ turnId: block.turnId, messages: [...block.messages], firstId: block.firstId }));
  const prunedRows: number[] = [];
  const isCurrent = (block: Block) => input.currentTurnId !== undefined && block.turnId === input.currentTurnId;
  let prunedToolResults = 0;
  let prunedTurnContexts = 0;
  for (const block of blocks) {
    if (total <= input.budgetTokens) break;
    if (isCurrent(block)) continue;
    for (let index = 0; index < block.messages.length && total > input.budgetTokens; index++) {
      const message = block.messages[index]!;
      const plain = contextFree.get(message);
      if (plain) {
        block.messages[index] = plain;
        total -= messageTokens(message) - messageTokens(plain);
        prunedTurnContexts++;
        prunedRows.push(rowOf.get(message)!);
        continue;
      }
      if (message.role !== 'tool' || message.content === PRUNED) continue;
      const row = rowOf.get(message);
      // A placeholder (a call without a result yet) is no row: left as it is, it stays the same in a kept window.
      if (row === undefined) continue;
      const replaced = kept(pruned, message, prunedResult);
      block.messages[index] = replaced;
      total -= messageTokens(message) - messageTokens(replaced);
      prunedToolResults++;
      prunedRows.push(row);
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
  if (total > input.budgetTokens) total = cutCurrentMessages(blocks, total, input.budgetTokens, isCurrent);
  return {
    messages: blocks.flatMap((b) => b.messages),
    estimatedTokens: total,
    prunedToolResults,
    prunedTurnContexts,
    droppedTurns,
    fromId: blocks[0]?.firstId ?? 0,
    prunedRows,
  };
}

export const CUT_NOTE = '\n[… cut here to fit the context window]';

/**
 * Still over the budget with only the current turn left: its user messages are cut, the longest
 * first, so that the newest message fits like the rest (a model server refuses a request over its
 * window, and no /reset would help). Returns the new total.
 */
function cutCurrentMessages(blocks: Block[], total: number, budget: number, isCurrent: (block: Block) => boolean): number {
  const current = blocks.find(isCurrent);
  if (!current) return total;
  const users = current.messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role === 'user')
    .sort((a, b) => messageTokens(b.message) - messageTokens(a.message));
  for (const { message, index } of users) {
    if (total <= budget) break;
    const tokens = messageTokens(message);
    const room = tokens - (total - budget) - MESSAGE_OVERHEAD_TOKENS - estimateTokens(CUT_NOTE);
    const cut: ChatMessage = { role: 'user', content: truncateToTokens(message.content, Math.max(0, room), CUT_NOTE) };
    // A message shorter than the note is left as it is.
    if (messageTokens(cut) >= tokens) continue;
    current.messages[index] = cut;
    total -= tokens - messageTokens(cut);
  }
  return total;
}

const least = new WeakMap<MessageRecord, number>();

function countLeastTokens(message: MessageRecord): number {
  if (message.role === 'tool') return MESSAGE_OVERHEAD_TOKENS + estimateTokens(PRUNED);
  const calls = message.toolCalls ?? [];
  return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content) + calls.reduce((n, c) => n + estimateTokens(c.name + c.arguments), 0);
}

/** The least a history row can cost in the context: its text, and a tool result pruned. */
function leastTokens(message: MessageRecord): number {
  return kept(least, message, countLeastTokens);
}

/** The least tokens of all of a history's rows (see contextStart). */
const leastTotals = new WindowFold<number>(
  () => 0,
  (tokens, row) => tokens + leastTokens(row),
);

/**
 * Where buildContext's input can start without changing what it builds: the first row of the
 * newest whole turns whose least possible size (every tool result pruned, no system prompt) is
 * already over the budget. buildContext drops every older turn in any case. Never after the first
 * row of `currentTurnId`. Rows are only ever appended, so the start of a later read is never before
 * this one's.
 */
export function contextStart(history: readonly MessageRecord[], budgetTokens: number, currentTurnId?: string): number {
  // All of it within the budget (a window kept from an earlier fit, and what was added since): nothing to cut.
  if ((leastTotals.of(history) ?? 0) <= budgetTokens) return 0;
  let total = 0;
  let over = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    total += leastTokens(history[i]!);
    if (total > budgetTokens) {
      over = i;
      break;
    }
  }
  if (over <= 0) return 0;
  // Back to the start of the block holding row `over` (see toBlocks: tool rows join the block before them).
  let start = over;
  while (start > 0 && !startsBlock(history, start)) start--;
  const current = currentTurnId === undefined ? -1 : history.findIndex((m) => m.turnId === currentTurnId);
  return current >= 0 ? Math.min(start, current) : start;
}

function startsBlock(history: readonly MessageRecord[], index: number): boolean {
  const message = history[index]!;
  if (message.role === 'tool') return false;
  if (message.turnId === undefined) return true;
  for (let i = index - 1; i >= 0; i--) {
    const before = history[i]!;
    if (before.role !== 'tool') return before.turnId !== message.turnId;
  }
  return true;
}
