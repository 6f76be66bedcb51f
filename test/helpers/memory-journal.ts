// An in-memory TurnJournal and a scripted model: the agent loop with no database and no HTTP.
// The journal keeps a log of what was written, in order, so tests can check what came first.
import type { TurnRun } from '../../src/agent/agent.ts';
import type { TurnJournal } from '../../src/agent/journal.ts';
import type { Completion, CompleteOptions, CompletionRequest, LlmClient, ToolCall } from '../../src/llm/types.ts';
import type { MessageRecord, NewMessage, SessionRecord, TurnRecord, TurnStatus, Usage } from '../../src/store/types.ts';

class JournalOutage extends Error {}

/**
 * A run of `started` whose first look for steering messages finds `text` (written to the turn as
 * the gateway writes them; the agent only learns that some arrived); later looks find none. No
 * text: never steered.
 */
export function steeredOnce(journal: MemoryJournal, started: { turn: TurnRecord; session: SessionRecord }, text?: string): TurnRun {
  let steered = false;
  return {
    ...started,
    signal: new AbortController().signal,
    emit: () => {},
    takeSteering: async () => {
      if (text === undefined || steered) return [];
      steered = true;
      await journal.append([{ sessionId: started.session.id, epoch: 0, turnId: started.turn.id, role: 'user', content: text }]);
      return [{} as never];
    },
  };
}

export class MemoryJournal implements TurnJournal {
  readonly sessions = new Map<string, SessionRecord>();
  readonly turns = new Map<string, TurnRecord>();
  readonly messages: MessageRecord[] = [];
  readonly starts = new Map<string, Set<string>>();
  readonly recoveries = new Map<string, number>();
  /** What was written, in order: "append:assistant", "starts:call_1", "finish:done"... */
  readonly log: string[] = [];
  /** The writes (as in `log`) the agent marked relaxed: their loss in a database crash only repeats work. */
  readonly relaxed: string[] = [];
  /** Makes the next writes fail (an outage) while it returns true. */
  failWrites: ((what: string) => boolean) | undefined;
  #nextId = 1;

  /** A session and a running turn whose user message is already in the conversation. */
  begin(
    text: string,
    options: { sessionId?: string; turnId?: string; chatType?: 'direct' | 'group' } = {},
  ): { turn: TurnRecord; session: SessionRecord } {
    const sessionId = options.sessionId ?? 's1';
    const chatType = options.chatType ?? 'direct';
    const session: SessionRecord = this.sessions.get(sessionId) ?? {
      id: sessionId,
      key: `memory:${sessionId}`,
      channel: 'memory',
      chatId: sessionId,
      chatType,
      epoch: 0,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    this.sessions.set(sessionId, session);
    const turn: TurnRecord = {
      id: options.turnId ?? `t${this.turns.size + 1}`,
      sessionId,
      epoch: 0,
      status: 'running',
      rounds: 0,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      cancelRequested: false,
      origin: { chat: { channel: 'memory', chatId: sessionId, chatType }, requester: { id: 'u-alice', displayName: 'Alice' } },
      startedAt: new Date(),
    };
    this.turns.set(turn.id, turn);
    this.#push({ sessionId, epoch: 0, turnId: turn.id, role: 'user', content: text, senderId: 'u-alice', senderName: 'Alice' });
    return { turn: { ...turn }, session };
  }

  turn(id: string): TurnRecord {
    const turn = this.turns.get(id);
    if (!turn) throw new Error(`no turn ${id}`);
    return turn;
  }

  forTurn(turnId: string): MessageRecord[] {
    return this.messages.filter((m) => m.turnId === turnId);
  }

  #write(what: string): void {
    if (this.failWrites?.(what)) throw new JournalOutage(`journal unavailable (${what})`);
    this.log.push(what);
  }

  #push(message: NewMessage): MessageRecord {
    const record: MessageRecord = { ...message, id: this.#nextId++, isError: message.isError ?? false, createdAt: new Date() };
    this.messages.push(record);
    return record;
  }

  async load(turnId: string) {
    const turn = this.turns.get(turnId);
    const session = turn && this.sessions.get(turn.sessionId);
    return turn && session ? { turn: { ...turn }, session } : undefined;
  }

  async history(sessionId: string, epoch: number, fromId = 0) {
    return this.messages.filter((m) => m.sessionId === sessionId && m.epoch === epoch && m.id >= fromId);
  }

  async turnMessages(turnId: string) {
    return this.forTurn(turnId);
  }

  async append(messages: NewMessage[], options: { relaxed?: boolean } = {}) {
    for (const message of messages) {
      const what = `append:${message.role}${message.toolCallId ? `:${message.toolCallId}` : ''}`;
      this.#write(what);
      if (options.relaxed) this.relaxed.push(what);
    }
    return messages.map((message) => this.#push(message));
  }

  async endRound(turnId: string, usage: Usage | undefined, assistant: NewMessage, finish?: 'done') {
    const writes = ['round', 'append:assistant', ...(finish ? [`finish:${finish}`] : [])];
    // All or nothing: a failing write leaves none of the round's writes behind.
    for (const what of writes) if (this.failWrites?.(what)) throw new JournalOutage(`journal unavailable (${what})`);
    this.#addRound(turnId, usage);
    const [record] = await this.append([assistant]);
    const ended = finish ? await this.finish(turnId, finish) : { usage: this.turn(turnId).usage, rounds: this.turn(turnId).rounds };
    return { assistant: record!, ended };
  }

  async endToolRound(turnId: string, usage: Usage | undefined, assistant: NewMessage, results: NewMessage[]) {
    const writes = ['round', 'append:assistant', ...results.map((r) => `append:tool:${r.toolCallId}`)];
    for (const what of writes) if (this.failWrites?.(what)) throw new JournalOutage(`journal unavailable (${what})`);
    this.#addRound(turnId, usage);
    const [record, ...written] = await this.append([assistant, ...results], { relaxed: true });
    // Without a mailbox here, the agent is told to look for steering messages, as after append.
    return { assistant: record!, results: written, queued: true };
  }

  #addRound(turnId: string, usage: Usage | undefined) {
    this.#write('round');
    const turn = this.turn(turnId);
    turn.rounds++;
    turn.usage = {
      promptTokens: turn.usage.promptTokens + (usage?.promptTokens ?? 0),
      completionTokens: turn.usage.completionTokens + (usage?.completionTokens ?? 0),
      totalTokens: turn.usage.totalTokens + (usage?.totalTokens ?? 0),
    };
  }

  async recordToolStarts(turnId: string, calls: { id: string; name: string }[]) {
    if (calls.length === 0) return;
    this.#write(`starts:${calls.map((c) => c.id).join(',')}`);
    const set = this.starts.get(turnId) ?? new Set<string>();
    for (const call of calls) {
      if (set.has(call.id)) throw new Error(`start of ${call.id} recorded twice`);
      set.add(call.id);
    }
    this.starts.set(turnId, set);
  }

  async toolStarts(turnId: string) {
    return new Set(this.starts.get(turnId) ?? []);
  }

  async suspend(turnId: string) {
    this.#write('suspend');
    this.turn(turnId).status = 'awaiting_approval';
  }

  async reopen(turnId: string) {
    const turn = this.turn(turnId);
    if (turn.status !== 'awaiting_approval') return false;
    this.#write('reopen');
    turn.status = 'running';
    return true;
  }

  async countRecovery(turnId: string) {
    this.#write('recovery');
    const count = (this.recoveries.get(turnId) ?? 0) + 1;
    this.recoveries.set(turnId, count);
    return count;
  }

  async finish(turnId: string, status: Extract<TurnStatus, 'done' | 'failed' | 'cancelled'>, error?: string) {
    this.#write(`finish:${status}`);
    const turn = this.turn(turnId);
    turn.status = status;
    if (error !== undefined) turn.error = error;
    return { usage: turn.usage, rounds: turn.rounds };
  }

  isOutage(error: unknown): boolean {
    return error instanceof JournalOutage;
  }
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: { id: string; name: string; arguments?: unknown }[];
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number };
}

/** An LlmClient that answers from a script, one reply per request, and records the requests. */
export class ScriptedModel implements LlmClient {
  readonly model = 'scripted';
  readonly requests: CompletionRequest[] = [];
  readonly #script: ScriptedReply[];

  constructor(...script: ScriptedReply[]) {
    this.#script = script;
  }

  get pending(): number {
    return this.#script.length;
  }

  async complete(request: CompletionRequest, options: CompleteOptions = {}): Promise<Completion> {
    this.requests.push(structuredClone(request));
    const reply = this.#script.shift();
    if (!reply) throw new Error('scripted model: script exhausted');
    if (reply.text) options.onDelta?.({ kind: 'text', text: reply.text });
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((call) => ({
      id: call.id,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    const usage = reply.usage ?? { promptTokens: 10, completionTokens: 5 };
    return {
      text: reply.text ?? '',
      reasoning: '',
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
      usage: { ...usage, totalTokens: usage.promptTokens + usage.completionTokens },
    };
  }
}
