// The agent loop: stream the model's message; if it asked for tools, run them and loop; stop on
// a text answer. Every step is written to the journal before the next one starts, so a turn can
// suspend (a call held for a decision: nothing kept in memory) and continue later on any process.
// The loop knows two ports: the journal (storage) and the tool hooks (who may hold a call).
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { PromptTemplate } from '../config/prompt-template.ts';
import { errorText, userMessageOf } from '../core/errors.ts';
import { DEFAULT_LOCALE, localeOrDefault, type Locale, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import { LlmError } from '../llm/errors.ts';
import type { Completion, LlmClient, ToolCall } from '../llm/types.ts';
import type { Logger } from '../log.ts';
import type { MemoryFactRecord, MessageRecord, NewMessage, SessionRecord, TurnRecord, TurnStatus, Usage } from '../store/types.ts';
import { ShutdownRequest, StopRequest } from './abort.ts';
import { buildContext, type ContextInput, contextStart, fitWindow } from './context.ts';
import type { EmitEvent } from './events.ts';
import type { HeldCall, ToolHooks } from './hooks.ts';
import type { TurnJournal } from './journal.ts';
import { turnCallIds } from './history-prefix.ts';
import { LoopDetector } from './loop-detector.ts';
import { interruptionNotice, planOpenCalls, replyResume } from './recovery.ts';
import { composeSystemPrompt } from './system-prompt.ts';
import { parseArguments, runToolCalls, type ToolResult } from './tool-runner.ts';
import type { ToolContext, ToolRegistry } from './tools.ts';

/**
 * Context for the model: in `sections`, a section of the system prompt, built again each turn
 * (session memory); in `turnSections`, material for one turn (retrieved knowledge), shown with the
 * turn's first user message and kept there for the turn's later requests.
 */
export type ContextSection = (input: {
  session: SessionRecord;
  turn: TurnRecord;
  userText: string;
  signal: AbortSignal;
  /** Read already for this turn (see TurnRun.preread); undefined once a tool may have changed it. */
  preread?: PrereadContext;
}) => Promise<string | undefined>;

/** What the session worker read with the session's lease, so that the turn's first round need not read it again. */
interface PrereadContext {
  memory?: MemoryFactRecord[];
}

export interface AgentOptions {
  journal: TurnJournal;
  llm: LlmClient;
  tools: ToolRegistry;
  hooks: ToolHooks;
  settings: Config['agent'];
  /** How many times a turn left running is continued before it is given up (default 3). */
  maxRecoveries?: number;
  /** The system prompt's base (a checked template), the bot's name, and the locale its own texts are in. */
  prompt: { base?: PromptTemplate; botName: string; locale?: string };
  /**
   * When a turn fails and the person who asked is an admin ("channel:userId"), the chat's message
   * adds the cause in one line (`cause`: undefined for failures that have none to tell); others
   * see the generic message.
   */
  failureNote?: { admins: readonly string[]; cause: (error: unknown) => string | undefined };
  sections?: ContextSection[];
  turnSections?: ContextSection[];
  /** Told of each turn that ended (done, failed or cancelled); not waited for. */
  onTurnEnd?: (turn: EndedTurn) => void;
  log: Logger;
  now?: () => Date;
}

export interface TurnRun {
  turn: TurnRecord;
  session: SessionRecord;
  signal: AbortSignal;
  emit: EmitEvent;
  /** Messages that arrived during the turn; injected after each tool batch. */
  takeSteering?: () => Promise<Inbound[]>;
  /** Context read with the session's lease, for the first build of the context sections. */
  preread?: PrereadContext;
  /** The turn's start showed the journal's cached history of the session complete: its read may use the cache alone. */
  historyChecked?: boolean;
}

interface EndedTurn {
  turnId: string;
  sessionId: string;
  status: 'done' | 'failed' | 'cancelled';
  text: string;
  usage: Usage;
  rounds: number;
}

export interface TurnOutcome {
  status: TurnStatus;
  /** Final answer, or the user-facing reason when the turn did not complete. */
  text: string;
}

/** Where a session's context window starts, and the tool results it shows pruned (see fitWindow). */
interface Floor {
  epoch: number;
  fromId: number;
  pruned?: ReadonlySet<number>;
}

type Step = { kind: 'continue' } | { kind: 'suspended' } | { kind: 'loop'; call: ToolCall; count: number };

const LIMIT_INSTRUCTION =
  'You have reached the maximum number of tool rounds for this turn. Tools are disabled now: answer the user with what you have, and say briefly what is missing.';
const DEFAULT_MAX_RECOVERIES = 3;
/**
 * A conversation over the context budget is fitted to this share of it (fitWindow): it then grows
 * into the rest, round after round and turn after turn, before it is fitted again.
 */
const WINDOW_REFIT_SHARE = 0.75;
/** Sessions whose context window start is remembered (a few numbers each). */
const MAX_FLOORS = 10_000;
/** Turns whose own context is remembered (see #turnContexts). */
const MAX_TURN_CONTEXTS = 10_000;
const LENGTH_RESULT =
  'Not run: your message was cut off (finish_reason "length"), so these arguments may be incomplete. Send the call again, with shorter arguments.';

export class Agent {
  readonly #o: AgentOptions;
  /** The conversation as read by a running loop, kept current with its own writes (see #remember). */
  readonly #histories = new WeakMap<TurnRun, MessageRecord[]>();
  /**
   * The context sections of a running loop, built in its first round and again only after steering
   * or a tool that refreshes context (memory is read once per turn, not once per round).
   */
  readonly #sections = new WeakMap<TurnRun, string[]>();
  /** Runs whose preread context may be out of date (sections were invalidated since it was read). */
  readonly #stale = new WeakSet<TurnRun>();
  /** Per session (least recently used first): where its context window starts, and what it shows pruned. */
  readonly #floors = new Map<string, Floor>();
  /** Runs whose last tool results were written while nothing was queued for their session. */
  readonly #nothingQueued = new WeakSet<TurnRun>();
  /**
   * Per turn (oldest first): its own context ('' for none), made once in its first round and shown
   * the same in every later request of the conversation, so that each begins as the one before. A
   * turn no longer here (another process, a restart) is shown without it.
   */
  readonly #turnContexts = new Map<string, string>();
  readonly #turnContextOf = (turnId: string): string | undefined => this.#turnContexts.get(turnId) || undefined;
  constructor(options: AgentOptions) {
    this.#o = options;
  }

  /** Runs a new turn whose user messages are already in the conversation (claimed from the mailbox). */
  async start(run: TurnRun): Promise<TurnOutcome> {
    run.emit({ type: 'turn_start', turnId: run.turn.id, sessionId: run.session.id, resumed: false });
    const detector = new LoopDetector(this.#o.settings.loopWarnAt, this.#o.settings.loopStopAt);
    return this.#guard(run, () => this.#loop(run, detector));
  }

  /**
   * Continues a turn left running by a process that went away (a crash, a restart, a lost
   * database): from the journal alone. Each time is counted; past `maxRecoveries` the turn is
   * given up, so a turn that fails the same way every time is not run and answered forever.
   */
  async continue(run: TurnRun): Promise<TurnOutcome> {
    return this.#guard(run, async () => {
      const messages = await this.#o.journal.turnMessages(run.turn.id);
      run.emit({
        type: 'turn_start',
        turnId: run.turn.id,
        sessionId: run.session.id,
        resumed: true,
        reply: replyResume(run.turn, messages),
      });
      const attempt = await this.#o.journal.countRecovery(run.turn.id);
      const max = this.#o.maxRecoveries ?? DEFAULT_MAX_RECOVERIES;
      if (attempt > max) {
        this.#o.log.error({ turnId: run.turn.id, attempt }, 'giving up a turn that was interrupted too many times');
        return this.#finish(run, 'failed', t(localeOf(run), 'chat.gaveUp'), `Gave up: continued ${max} times without finishing`);
      }
      return this.#continue(run, messages);
    });
  }

  /**
   * Continues a suspended turn once no call of its last message is pending any more (whoever
   * decided them). Returns undefined while some are pending, or when another caller resumed it.
   */
  async resume(turnId: string, run: Omit<TurnRun, 'turn' | 'session'>): Promise<TurnOutcome | undefined> {
    const { journal, hooks } = this.#o;
    const loaded = await journal.load(turnId);
    if (loaded?.turn.status !== 'awaiting_approval') return undefined;
    const settlements = await hooks.settle(turnId, openCalls(await journal.turnMessages(turnId)));
    if ([...settlements.values()].some((s) => 'pending' in s)) return undefined;
    if (!(await journal.reopen(turnId))) return undefined;
    const turned: TurnRun = { ...run, turn: { ...loaded.turn, status: 'running' }, session: loaded.session };
    return this.#guard(turned, async () => {
      const messages = await journal.turnMessages(turnId);
      run.emit({ type: 'turn_start', turnId, sessionId: loaded.session.id, resumed: true, reply: replyResume(turned.turn, messages) });
      return this.#continue(turned, messages);
    });
  }

  /**
   * Settles the unanswered calls of the last message first: released → run; answered by the
   * hooks (e.g. denied) → that result; started but unfinished (a crash mid-call) → never run
   * again unless the tool is idempotent: the model gets a result saying so and the chat is told;
   * never started and never held → a normal tool step.
   */
  async #continue(run: TurnRun, messages: MessageRecord[]): Promise<TurnOutcome> {
    const { journal, hooks } = this.#o;
    const detector = new LoopDetector(this.#o.settings.loopWarnAt, this.#o.settings.loopStopAt);
    const last = messages.findLast((m) => m.role === 'assistant');
    const open = openCalls(messages);
    if (!last || open.length === 0) {
      detector.seed(messages.flatMap((m) => m.toolCalls ?? []));
    } else {
      const settlements = await hooks.settle(run.turn.id, open);
      if ([...settlements.values()].some((s) => 'pending' in s)) {
        await journal.suspend(run.turn.id);
        return { status: 'awaiting_approval', text: '' };
      }
      const started = await journal.toolStarts(run.turn.id);
      const plan = planOpenCalls(open, settlements, started, this.#o.tools);
      const fresh = new Set(plan.fresh.map((call) => call.id));
      // Calls that never ran are observed when they run, below.
      detector.seed(
        messages.flatMap((m) => (m.id === last.id ? (m.toolCalls ?? []).filter((c) => !fresh.has(c.id)) : (m.toolCalls ?? []))),
      );
      const ran = await this.#runCalls(run, plan.run, started);
      const results = [...ran.results, ...plan.settled];
      await this.#saveResults(
        run,
        open.flatMap((call) => results.filter((r) => r.callId === call.id)),
        { relaxed: ran.mayRunAgain },
      );
      if (plan.interrupted.length > 0)
        run.emit({ type: 'notice', turnId: run.turn.id, text: interruptionNotice(plan.interrupted, localeOf(run)) });
      if (plan.fresh.length > 0) {
        const ended = await this.#afterStep(run, await this.#toolStep(run, last, plan.fresh, detector));
        if (ended) return ended;
      } else {
        if (run.signal.aborted) return this.#cancelled(run);
        await this.#injectSteering(run);
      }
    }
    if (last?.role === 'assistant' && !last.toolCalls?.length && messages.at(-1)?.id === last.id) {
      // The answer was already written before the interruption.
      return this.#finish(run, 'done', last.content);
    }
    return this.#loop(run, detector);
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }

  /** Any failure ends the turn as failed with a user-facing reason; a stop ends it as cancelled. */
  async #guard(run: TurnRun, body: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    try {
      return await body();
    } catch (error) {
      if (run.signal.aborted || (error instanceof LlmError && error.kind === 'aborted')) return this.#cancelled(run);
      this.#o.log.error({ err: error, turnId: run.turn.id }, 'turn failed');
      if (this.#o.journal.isOutage(error)) {
        // Storage failed under the turn: it stays `running` and is continued from what was written
        // (orphan recovery, counted), once storage answers again.
        run.emit({
          type: 'turn_end',
          turnId: run.turn.id,
          status: 'running',
          text: t(localeOf(run), 'chat.databaseLost'),
          usage: run.turn.usage,
          rounds: run.turn.rounds,
          error: errorText(error),
        });
        return { status: 'running', text: t(localeOf(run), 'chat.databaseLost') };
      }
      return this.#finish(run, 'failed', this.#failureText(run, error), errorText(error));
    }
  }

  /** The user-facing message; for an admin who asked, with the cause in one line. */
  #failureText(run: TurnRun, error: unknown): string {
    const generic = userMessageOf(error, localeOf(run));
    const note = this.#o.failureNote;
    if (!note) return generic;
    const { chat, requester } = run.turn.origin;
    if (!note.admins.includes(`${chat.channel}:${requester.id}`)) return generic;
    const cause = note.cause(error);
    return cause ? `${generic}\n\n${t(localeOf(run), 'chat.forAdmins', { cause: markdownText(cause) })}` : generic;
  }

  async #loop(run: TurnRun, detector: LoopDetector): Promise<TurnOutcome> {
    const { journal, settings } = this.#o;
    let rounds = run.turn.rounds;
    for (;;) {
      if (run.signal.aborted) return this.#cancelled(run);
      const atLimit = rounds >= settings.maxRounds;
      const { completion, history } = await this.#complete(run, rounds + 1, atLimit);
      rounds++;
      let calls = atLimit || completion.toolCalls.length === 0 ? [] : uniqueIds(turnCallIds(history, run.turn.id), completion.toolCalls);
      if (calls.length > 0 && this.#o.hooks.prepareCalls) calls = await this.#o.hooks.prepareCalls(calls, this.#toolContext(run));
      if (calls.length > 0 && completion.finishReason !== 'length' && (await this.#mayRunUnwritten(run, calls))) {
        const ended = await this.#afterStep(run, await this.#unwrittenToolStep(run, completion, calls, detector));
        if (ended) return ended;
        continue;
      }
      if (calls.length === 0) run.emit({ type: 'answer_complete', turnId: run.turn.id, round: rounds });
      // The round, its message and (when it is the last one) the turn's end: one write.
      const { assistant, ended: written } = await this.#remember(
        run,
        journal.endRound(
          run.turn.id,
          completion.usage,
          this.#assistantMessage(run, completion.text, calls),
          calls.length === 0 ? 'done' : undefined,
        ),
        (w) => [w.assistant],
      );
      if (atLimit) {
        const notice = t(localeOf(run), 'chat.roundLimit', { count: settings.maxRounds });
        run.emit({ type: 'notice', turnId: run.turn.id, text: notice });
      }
      if (calls.length === 0) return this.#ended(run, 'done', completion.text, written);
      if (completion.finishReason === 'length') {
        await this.#saveResults(
          run,
          calls.map((call) => ({ callId: call.id, name: call.name, content: LENGTH_RESULT, isError: true, durationMs: 0 })),
          { relaxed: true },
        );
        continue;
      }
      const ended = await this.#afterStep(run, await this.#toolStep(run, assistant, calls, detector));
      if (ended) return ended;
    }
  }

  /** Ends the turn when the tool step suspended it, looped or was stopped; otherwise undefined. */
  async #afterStep(run: TurnRun, step: Step): Promise<TurnOutcome | undefined> {
    if (step.kind === 'suspended') {
      await this.#o.journal.suspend(run.turn.id);
      return { status: 'awaiting_approval', text: '' };
    }
    if (step.kind === 'loop') {
      const text = t(localeOf(run), 'chat.loop', { tool: step.call.name, count: step.count });
      return this.#finish(run, 'failed', text, `Loop detected: ${step.call.name} called ${step.count} times with the same arguments`);
    }
    if (run.signal.aborted) return this.#cancelled(run);
    await this.#injectSteering(run);
    return undefined;
  }

  async #complete(run: TurnRun, round: number, atLimit: boolean): Promise<{ completion: Completion; history: MessageRecord[] }> {
    const { journal, settings, tools } = this.#o;
    // Read once per run of the loop: later rounds add what this turn wrote since (see #remember).
    let history = this.#histories.get(run);
    if (!history) {
      // From the last turn's window start on: older messages cannot fit in the context any more.
      const floor = this.#floorOf(run);
      this.#floors.delete(run.session.id);
      const read = await journal.history(run.session.id, run.turn.epoch, floor?.fromId ?? 0, run.historyChecked);
      history = read.slice(contextStart(read, settings.contextTokens, run.turn.id));
      this.#setFloor(run, { epoch: run.turn.epoch, fromId: history[0]?.id ?? 0, ...(floor?.pruned ? { pruned: floor.pruned } : {}) });
      this.#histories.set(run, history);
    }
    const systemPrompt = await this.#systemPrompt(run, history);
    await this.#makeTurnContext(run, history);
    const pruned = this.#floorOf(run)?.pruned;
    const input: ContextInput = {
      systemPrompt,
      history,
      budgetTokens: settings.contextTokens,
      currentTurnId: run.turn.id,
      labelSenders: run.session.chatType === 'group',
      trailingSystem: atLimit ? LIMIT_INSTRUCTION : undefined,
      turnContext: this.#turnContextOf,
      ...(pruned ? { pruned } : {}),
    };
    let context = buildContext(input);
    if (context.droppedTurns > 0 || context.prunedToolResults > 0 || context.prunedTurnContexts > 0) {
      // Over the budget: fitted well inside it, so that the next rounds and turns add to this window.
      const window = fitWindow(input, Math.floor(settings.contextTokens * WINDOW_REFIT_SHARE));
      const from = history.findIndex((m) => m.id === window.fromId);
      history = history.slice(Math.max(0, from));
      this.#histories.set(run, history);
      this.#setFloor(run, { epoch: run.turn.epoch, fromId: window.fromId, pruned: window.pruned });
      context = buildContext({ ...input, history, pruned: window.pruned });
    }
    const specs = tools.specs();
    let partial = '';
    try {
      const completion = await this.#o.llm.complete(
        { messages: context.messages, tools: specs, toolChoice: atLimit ? 'none' : 'auto' },
        {
          signal: run.signal,
          sessionId: run.session.id,
          onNotice: (text) => run.emit({ type: 'notice', turnId: run.turn.id, text }),
          chat: { channel: run.session.channel, chatId: run.session.chatId, turnId: run.turn.id },
          onDelta: (delta) => {
            if (delta.kind === 'text') partial += delta.text;
            run.emit({ type: 'message_delta', turnId: run.turn.id, round, kind: delta.kind, text: delta.text });
          },
          onBusy: ({ retryInMs }) => run.emit({ type: 'model_busy', turnId: run.turn.id, round, retryInMs }),
        },
      );
      return { completion, history };
    } catch (error) {
      // Stopped: keep what the user already saw streaming in, so the history matches the chat. Not
      // on shutdown: the turn continues later and this round is asked again.
      if (partial && run.signal.aborted && !(run.signal.reason instanceof ShutdownRequest)) {
        await journal.append([
          {
            sessionId: run.session.id,
            epoch: run.turn.epoch,
            turnId: run.turn.id,
            role: 'assistant',
            content: `${partial} [stopped]`,
          },
        ]);
      }
      throw error;
    }
  }

  /** The session's window start, when it was set in this turn's epoch (a reset starts over). */
  #floorOf(run: TurnRun): Floor | undefined {
    const floor = this.#floors.get(run.session.id);
    return floor?.epoch === run.turn.epoch ? floor : undefined;
  }

  #setFloor(run: TurnRun, floor: Floor): void {
    this.#floors.delete(run.session.id);
    this.#floors.set(run.session.id, floor);
    if (this.#floors.size > MAX_FLOORS) this.#floors.delete(this.#floors.keys().next().value!);
  }

  async #systemPrompt(run: TurnRun, history: MessageRecord[]): Promise<string> {
    const sections = this.#sections.get(run) ?? (await this.#buildSections(run, history));
    return composeSystemPrompt({
      ...(this.#o.prompt.base ? { base: this.#o.prompt.base } : {}),
      botName: this.#o.prompt.botName,
      now: this.#now(),
      chatType: run.session.chatType,
      channel: run.session.channel,
      chatTitle: run.turn.origin.chatTitle ?? '',
      locale: this.#o.prompt.locale ?? DEFAULT_LOCALE,
      sections,
    });
  }

  /** The turn's own context (turnSections), made in its first round on this process and kept for the conversation's later requests. */
  async #makeTurnContext(run: TurnRun, history: MessageRecord[]): Promise<void> {
    const sections = this.#o.turnSections ?? [];
    if (sections.length === 0 || this.#turnContexts.has(run.turn.id)) return;
    const userText = history.findLast((m) => m.role === 'user' && m.turnId === run.turn.id)?.content ?? '';
    const parts: string[] = [];
    for (const section of sections) {
      try {
        const text = await section({ session: run.session, turn: run.turn, userText, signal: run.signal });
        if (text?.trim()) parts.push(text);
      } catch (error) {
        // The turn goes on without it: later requests must show the turn as this one does.
        this.#o.log.warn({ err: error, turnId: run.turn.id }, "a turn's context section failed; the turn goes on without it");
      }
    }
    this.#turnContexts.set(run.turn.id, parts.join('\n\n'));
    if (this.#turnContexts.size > MAX_TURN_CONTEXTS) this.#turnContexts.delete(this.#turnContexts.keys().next().value!);
  }

  /** The next round builds the context sections again, from what is stored now. */
  #forgetSections(run: TurnRun): void {
    this.#sections.delete(run);
    this.#stale.add(run);
  }

  /** Builds the context sections; kept for the next rounds unless one failed (then tried again). */
  async #buildSections(run: TurnRun, history: MessageRecord[]): Promise<string[]> {
    const userText = history.findLast((m) => m.role === 'user' && m.turnId === run.turn.id)?.content ?? '';
    const sections: string[] = [];
    let failed = false;
    for (const section of this.#o.sections ?? []) {
      try {
        const preread = this.#stale.has(run) ? undefined : run.preread;
        const text = await section({ session: run.session, turn: run.turn, userText, signal: run.signal, ...(preread ? { preread } : {}) });
        if (text) sections.push(text);
      } catch (error) {
        failed = true;
        this.#o.log.warn({ err: error, turnId: run.turn.id }, 'a context section failed; continuing without it');
      }
    }
    if (!failed) this.#sections.set(run, sections);
    return sections;
  }

  #toolContext(run: TurnRun): ToolContext {
    return {
      sessionId: run.session.id,
      sessionKey: run.session.key,
      turnId: run.turn.id,
      chat: run.turn.origin.chat,
      requester: run.turn.origin.requester,
      signal: run.signal,
      log: this.#o.log,
    };
  }

  async #toolStep(run: TurnRun, assistant: MessageRecord, calls: ToolCall[], detector: LoopDetector): Promise<Step> {
    const { verdicts, loop } = observeRepeats(detector, calls);
    if (loop) {
      await this.#saveResults(run, notRunAsRepeated(calls), { relaxed: true });
      return loop;
    }

    // Each call with valid arguments is put to the hooks (one by one, in call order); the allowed
    // ones then run concurrently. Unknown tools and invalid arguments only produce an error result.
    const ctx = this.#toolContext(run);
    const allowed: ToolCall[] = [];
    const blocked: ToolResult[] = [];
    const held: HeldCall[] = [];
    for (const call of calls) {
      const tool = this.#o.tools.get(call.name);
      const parsed = tool ? parseArguments(tool, call.arguments) : undefined;
      if (!tool || !parsed?.ok) {
        allowed.push(call);
        continue;
      }
      const verdict = await this.#o.hooks.beforeToolCall({ call, tool, args: parsed.args, ctx, messageId: assistant.id });
      if ('allow' in verdict) allowed.push(call);
      else if ('block' in verdict)
        blocked.push({ callId: call.id, name: call.name, content: verdict.reason, isError: true, durationMs: 0 });
      else held.push(verdict.suspend);
    }

    const { results, mayRunAgain } = await this.#runCalls(run, allowed);
    warnOfRepeats(results, calls, verdicts);
    const answered = [...results, ...blocked];
    await this.#saveResults(
      run,
      calls.flatMap((call) => answered.filter((r) => r.callId === call.id)),
      { relaxed: mayRunAgain },
    );

    if (held.length === 0) return { kind: 'continue' };
    for (const { approval, description } of held)
      run.emit({ type: 'approval_requested', turnId: run.turn.id, approval, ...(description ? { description } : {}) });
    return { kind: 'suspended' };
  }

  /**
   * Whether the round's calls may run before it is written: each may run again (idempotent, valid
   * arguments) and the hooks would allow it without anyone's decision. Its round and results are
   * then one write (a crash before it repeats the round), instead of one before the calls and one after.
   */
  async #mayRunUnwritten(run: TurnRun, calls: ToolCall[]): Promise<boolean> {
    const { journal, hooks, tools } = this.#o;
    if (!journal.endToolRound || !hooks.needsDecision) return false;
    const ctx = this.#toolContext(run);
    for (const call of calls) {
      const tool = tools.get(call.name);
      if (tool?.idempotent !== true) return false;
      const parsed = parseArguments(tool, call.arguments);
      if (!parsed.ok || (await hooks.needsDecision({ call, tool, args: parsed.args, ctx }))) return false;
    }
    return true;
  }

  /** The tool step of a round whose calls may run unwritten (#mayRunUnwritten): run, then one write. */
  async #unwrittenToolStep(run: TurnRun, completion: Completion, calls: ToolCall[], detector: LoopDetector): Promise<Step> {
    const { verdicts, loop } = observeRepeats(detector, calls);
    let results: ToolResult[];
    if (loop) results = notRunAsRepeated(calls);
    else {
      results = (await this.#runCalls(run, calls)).results;
      warnOfRepeats(results, calls, verdicts);
    }
    const { queued } = await this.#remember(
      run,
      this.#o.journal.endToolRound!(
        run.turn.id,
        completion.usage,
        this.#assistantMessage(run, completion.text, calls),
        // In call order, as the calls ran (runToolCalls) or were stopped.
        this.#resultMessages(run, results),
      ),
      (written) => [written.assistant, ...written.results],
    );
    if (queued) this.#nothingQueued.delete(run);
    else this.#nothingQueued.add(run);
    return loop ?? { kind: 'continue' };
  }

  /**
   * Runs calls after committing their start records (`started`: ids recorded already).
   * `mayRunAgain`: none of them has an effect that must not happen twice, so their results may be
   * lost in a database crash (they would be produced again).
   */
  async #runCalls(
    run: TurnRun,
    calls: ToolCall[],
    started: ReadonlySet<string> = new Set(),
  ): Promise<{ results: ToolResult[]; mayRunAgain: boolean }> {
    if (calls.length === 0) return { results: [], mayRunAgain: true };
    // A start record keeps a call that was cut off from running twice. Unknown tools and invalid
    // arguments have no side effect to guard, and an idempotent tool may run again: none for them.
    const onceOnly = calls.filter((call) => this.#hasOnceOnlyEffect(call));
    const starting = onceOnly.filter((call) => !started.has(call.id));
    await this.#o.journal.recordToolStarts(
      run.turn.id,
      starting.map((call) => ({ id: call.id, name: call.name })),
    );
    if (calls.some((call) => this.#o.tools.get(call.name)?.refreshesContext)) this.#forgetSections(run);
    const results = await runToolCalls(calls, this.#o.tools, this.#toolContext(run), {
      timeoutMs: this.#o.settings.toolTimeoutMs,
      maxResultChars: this.#o.settings.toolResultMaxChars,
      ...(this.#o.hooks.afterToolCall ? { after: this.#o.hooks.afterToolCall } : {}),
      onStart: (call, tool) =>
        run.emit({
          type: 'tool_start',
          turnId: run.turn.id,
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          activity: tool?.activity,
        }),
      onEnd: (result) =>
        run.emit({
          type: 'tool_end',
          turnId: run.turn.id,
          callId: result.callId,
          name: result.name,
          ok: !result.isError,
          durationMs: result.durationMs,
        }),
    });
    return { results, mayRunAgain: onceOnly.length === 0 };
  }

  /**
   * Adds what `write` stored to the history this run of the loop already read, so the next round
   * does not read the whole conversation again (the session's lease makes this turn its only
   * writer; steering, written elsewhere, drops the copy instead).
   */
  async #remember<T>(run: TurnRun, write: Promise<T>, written: (result: T) => MessageRecord[]): Promise<T> {
    const result = await write;
    this.#histories.get(run)?.push(...written(result));
    return result;
  }

  /** A call of a known tool that is not idempotent, with valid arguments: its effect must not happen twice. */
  #hasOnceOnlyEffect(call: ToolCall): boolean {
    const tool = this.#o.tools.get(call.name);
    return tool !== undefined && tool.idempotent !== true && parseArguments(tool, call.arguments).ok;
  }

  /**
   * `relaxed`: the results could be produced again (calls that may run again, or answers derived
   * from what is stored), so their write need not wait for the disk (TurnJournal.appendSeeingQueue).
   */
  async #saveResults(run: TurnRun, results: ToolResult[], options: { relaxed?: boolean } = {}): Promise<void> {
    if (results.length === 0) return;
    const messages = this.#resultMessages(run, results);
    const { journal } = this.#o;
    if (!journal.appendSeeingQueue) {
      await this.#remember(run, journal.append(messages, options), (records) => records);
      return;
    }
    const { queued } = await this.#remember(
      run,
      journal.appendSeeingQueue(messages, run.session.id, options),
      (written) => written.records,
    );
    if (queued) this.#nothingQueued.delete(run);
    else this.#nothingQueued.add(run);
  }

  #assistantMessage(run: TurnRun, text: string, calls: ToolCall[]): NewMessage {
    return {
      sessionId: run.session.id,
      epoch: run.turn.epoch,
      turnId: run.turn.id,
      role: 'assistant',
      content: text,
      ...(calls.length ? { toolCalls: calls } : {}),
    };
  }

  #resultMessages(run: TurnRun, results: ToolResult[]): NewMessage[] {
    return results.map((result) => ({
      sessionId: run.session.id,
      epoch: run.turn.epoch,
      turnId: run.turn.id,
      role: 'tool' as const,
      content: result.content,
      toolCallId: result.callId,
      toolName: result.name,
      isError: result.isError,
    }));
  }

  async #injectSteering(run: TurnRun): Promise<void> {
    // The tool results just written saw an empty mailbox: a message queued since is taken after
    // the next round, or starts the next turn.
    if (this.#nothingQueued.delete(run)) return;
    const steered = (await run.takeSteering?.()) ?? [];
    if (steered.length === 0) return;
    this.#histories.delete(run);
    this.#forgetSections(run);
    this.#o.log.debug({ turnId: run.turn.id, count: steered.length }, 'steering messages injected');
  }

  async #cancelled(run: TurnRun): Promise<TurnOutcome> {
    const reason = run.signal.reason;
    if (reason instanceof ShutdownRequest) {
      // Leave the turn `running`: the next process to start continues it from the database.
      const text = t(localeOf(run), 'chat.restarting');
      run.emit({ type: 'turn_end', turnId: run.turn.id, status: 'running', text, usage: run.turn.usage, rounds: run.turn.rounds });
      return { status: 'running', text };
    }
    const by = reason instanceof StopRequest ? reason.by : undefined;
    // Close any call left without a result, so the conversation stays well-formed.
    const open = openCalls(await this.#o.journal.turnMessages(run.turn.id));
    const content = `Cancelled: the turn was stopped${by ? ` by ${by}` : ''}.`;
    await this.#saveResults(
      run,
      open.map((call) => ({ callId: call.id, name: call.name, content, isError: true, durationMs: 0 })),
    );
    return this.#finish(
      run,
      'cancelled',
      by ? t(localeOf(run), 'chat.stoppedBy', { name: markdownText(by) }) : t(localeOf(run), 'chat.stopped'),
    );
  }

  async #finish(run: TurnRun, status: 'done' | 'failed' | 'cancelled', text: string, error?: string): Promise<TurnOutcome> {
    let ended: { usage: Usage; rounds: number };
    try {
      ended = await this.#o.journal.finish(run.turn.id, status, error);
    } catch (storeError) {
      // Not ended, so it stays running and is continued later (counted): shown as paused, so that
      // the continuation edits this message instead of answering again below it.
      this.#o.log.error({ err: storeError, turnId: run.turn.id }, 'could not record the end of a turn; it will be continued');
      const shown = status === 'done' ? '' : text;
      run.emit({
        type: 'turn_end',
        turnId: run.turn.id,
        status: 'running',
        text: shown,
        usage: run.turn.usage,
        rounds: run.turn.rounds,
        ...(error ? { error } : {}),
      });
      return { status: 'running', text: shown };
    }
    return this.#ended(run, status, text, ended, error);
  }

  #ended(
    run: TurnRun,
    status: 'done' | 'failed' | 'cancelled',
    text: string,
    ended: { usage: Usage; rounds: number },
    error?: string,
  ): TurnOutcome {
    run.emit({
      type: 'turn_end',
      turnId: run.turn.id,
      status,
      text,
      usage: ended.usage,
      rounds: ended.rounds,
      ...(error ? { error } : {}),
    });
    this.#o.onTurnEnd?.({ turnId: run.turn.id, sessionId: run.session.id, status, text, usage: ended.usage, rounds: ended.rounds });
    return { status, text };
  }
}

type Verdict = ReturnType<LoopDetector['observe']>;

/** The language of the turn's own texts (stored with the turn; English for turns stored before it was). */
function localeOf(run: Pick<TurnRun, 'turn'>): Locale {
  return localeOrDefault(run.turn.origin.locale);
}

/** The loop detector's verdict on each call, and the step that ends the turn when one of them must stop. */
function observeRepeats(detector: LoopDetector, calls: ToolCall[]): { verdicts: Verdict[]; loop?: Extract<Step, { kind: 'loop' }> } {
  const verdicts = calls.map((call) => detector.observe(call));
  const at = verdicts.findIndex((v) => v.kind === 'stop');
  const stop = verdicts[at];
  return { verdicts, ...(stop?.kind === 'stop' ? { loop: { kind: 'loop', call: calls[at]!, count: stop.count } } : {}) };
}

/** Results for calls the loop detector stopped: none of them runs. */
function notRunAsRepeated(calls: ToolCall[]): ToolResult[] {
  const content = 'Not run: the same call was repeated too many times in this turn.';
  return calls.map((call) => ({ callId: call.id, name: call.name, content, isError: true, durationMs: 0 }));
}

/** Prefixes a warning to the results of calls the loop detector saw repeated. */
function warnOfRepeats(results: ToolResult[], calls: ToolCall[], verdicts: Verdict[]): void {
  for (const result of results) {
    const verdict = verdicts[calls.findIndex((c) => c.id === result.callId)];
    if (verdict?.kind === 'warn') {
      result.content = `[Warning: you have called ${result.name} with these same arguments ${verdict.count} times in this turn. Repeating it will not give a different result; change approach or answer.]\n${result.content}`;
    }
  }
}

/** The calls of the turn's last assistant message that have no result yet. */
function openCalls(messages: MessageRecord[]): ToolCall[] {
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  const last = messages.findLast((m) => m.role === 'assistant');
  return (last?.toolCalls ?? []).filter((call) => !answered.has(call.id));
}

/** Models sometimes reuse ids ("call_0" every round); approvals need them unique per turn. */
function uniqueIds(turnIds: ReadonlySet<string>, calls: ToolCall[]): ToolCall[] {
  const seen = new Set(turnIds);
  return calls.map((call) => {
    let id = call.id || 'call';
    if (seen.has(id)) id = `${id}_${randomBytes(3).toString('hex')}`;
    seen.add(id);
    return { ...call, id };
  });
}
