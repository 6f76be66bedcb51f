// The gateway: every adapter's inbound messages and button presses come here. It de-duplicates
// (persisted), applies the trigger policy, handles the control commands, puts messages in the
// session's persisted mailbox and runs turns one at a time per session.
import { StopRequest } from '../agent/abort.ts';
import type { Agent, TurnOutcome, TurnRun } from '../agent/agent.ts';
import { COMMANDS, parseCommand, type ParsedCommand } from '../core/commands.ts';
import { errorText, userMessageOf } from '../core/errors.ts';
import { InboundSchema, type Action, type ChannelAdapter, type ChatRef, type Inbound, type InboundSink } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { Decision, SessionRecord, TurnOrigin, TurnRecord } from '../store/types.ts';
import { ReplyRenderer, type ApprovalPromptSink } from './renderer.ts';
import type { SessionScheduler } from './scheduler.ts';
import { sessionSpecFor, type GroupSessionMode } from './session-key.ts';

/** What the approvals module offers the gateway (kept as an interface: it is optional here). */
export interface ApprovalHandler {
  readonly prompts: ApprovalPromptSink;
  /** Handles a button press; false when the payload is not an approval token. */
  handleAction(action: Action): Promise<boolean>;
  /** /approve, /deny, /revoke: returns the reply text. */
  handleCommand(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string>;
  /** A suspended turn was stopped: its pending approvals end as denied and prompts are updated. */
  turnStopped(turnId: string, by: string): Promise<void>;
  /** Periodic work: expire due approvals. */
  sweep(): Promise<void>;
}

export interface GatewayOptions {
  store: Store;
  /** Undefined when no model is configured: the bot then explains how to configure one. */
  agent?: Agent;
  adapters: ChannelAdapter[];
  scheduler: SessionScheduler;
  log: Logger;
  botName: string;
  groupSession: GroupSessionMode;
  approvals?: ApprovalHandler;
  sweepIntervalMs?: number;
}

const NO_MODEL =
  'No language model is configured yet, so I cannot answer. An admin needs to set OPENAI_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY) and restart me.';

export class Gateway implements InboundSink {
  readonly #o: GatewayOptions;
  readonly #adapters: Map<string, ChannelAdapter>;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #lastPrune = 0;

  constructor(options: GatewayOptions) {
    this.#o = options;
    this.#adapters = new Map(options.adapters.map((a) => [a.name, a]));
  }

  get adapters(): ChannelAdapter[] {
    return [...this.#adapters.values()];
  }

  setApprovals(approvals: ApprovalHandler): void {
    this.#o.approvals = approvals;
  }

  async start(): Promise<void> {
    for (const adapter of this.#adapters.values()) await adapter.start(this);
    await this.sweep();
    const every = this.#o.sweepIntervalMs ?? 5_000;
    // Not unref'd: the sweeper is also what keeps a bot with no network channel alive.
    this.#sweeper = setInterval(() => void this.sweep(), every);
  }

  /** Stop taking new work, let running turns reach a checkpoint, stop the adapters. */
  async stop(graceMs = 3_000): Promise<void> {
    clearInterval(this.#sweeper);
    await this.#o.scheduler.stop(graceMs);
    await this.#sweeping;
    for (const adapter of this.#adapters.values()) {
      await adapter.stop().catch((error: unknown) => this.#o.log.warn({ err: error }, `stopping ${adapter.name} failed`));
    }
  }

  // ---- inbound ---------------------------------------------------------------------------

  async onMessage(raw: Inbound): Promise<void> {
    const parsed = InboundSchema.safeParse(raw);
    if (!parsed.success) {
      this.#o.log.warn({ issues: parsed.error.issues }, 'dropped a malformed inbound message from an adapter');
      return;
    }
    const inbound = parsed.data;
    if (inbound.sender.isBot) return;
    const command = parseCommand(inbound.text);
    const addressed = inbound.chatType === 'direct' || inbound.mentionsBot || inbound.repliesToBot || command !== undefined;
    if (!addressed) {
      this.#o.log.debug({ channel: inbound.channel, chatId: inbound.chatId }, 'ignored: group message not addressed to the bot');
      return;
    }
    const session = await this.#o.store.sessions.ensure(sessionSpecFor(inbound, this.#o.groupSession));
    const chat = chatOf(inbound);

    if (command && CONTROL.has(command.name)) {
      if (!(await this.#o.store.inbound.record(inbound, session.id, 'done'))) return;
      const reply = await this.#control(command, inbound, session);
      if (reply) await this.#reply(chat, reply, inbound);
      return;
    }
    if (!this.#o.agent) {
      if (await this.#o.store.inbound.record(inbound, session.id, 'done')) await this.#reply(chat, NO_MODEL, inbound);
      return;
    }
    if (!(await this.#o.store.inbound.record(inbound, session.id, 'queued'))) {
      this.#o.log.debug({ channel: inbound.channel, eventId: inbound.eventId }, 'duplicate delivery ignored');
      return;
    }
    const active = await this.#o.store.turns.active(session.id);
    if (active?.status === 'awaiting_approval') {
      await this.#reply(chat, 'I am waiting for a decision on a tool approval in this conversation; I will read your message right after it.', inbound);
    }
    this.kick(session.id);
  }

  async onAction(action: Action): Promise<void> {
    try {
      const handled = await this.#o.approvals?.handleAction(action);
      if (!handled) await action.ack('This button is no longer active.');
    } catch (error) {
      this.#o.log.error({ err: error }, 'handling a button press failed');
      await action.ack(userMessageOf(error)).catch(() => {});
    }
  }

  // ---- commands --------------------------------------------------------------------------

  async #control(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string | undefined> {
    const who = inbound.sender.displayName || inbound.sender.id;
    switch (command.name) {
      case 'start':
      case 'help':
        return helpText(this.#o.botName, inbound.chatType);
      case 'stop':
        return (await this.stopSession(session.id, who)) ? undefined : 'Nothing to stop.';
      case 'reset': {
        await this.stopSession(session.id, who);
        await this.#o.store.sessions.reset(session.id);
        return 'Started a fresh conversation. (Facts I was asked to remember are kept; ask me to forget them if needed.)';
      }
      default:
        if (!this.#o.approvals) return 'Approvals are not enabled here.';
        return this.#o.approvals.handleCommand(command, inbound, session);
    }
  }

  /** Stops the session's unfinished turn, wherever it runs. True when there was one. */
  async stopSession(sessionId: string, by: string): Promise<boolean> {
    const active = await this.#o.store.turns.active(sessionId);
    if (!active) return false;
    if (active.status === 'awaiting_approval') {
      if (await this.#o.store.turns.transition(active.id, 'awaiting_approval', 'cancelled')) {
        await this.#o.approvals?.turnStopped(active.id, by);
        await this.#reply(active.origin.chat, `Stopped (by ${by}).`);
      }
      return true;
    }
    // Running here: abort now (the turn announces it). Elsewhere: that process polls the flag.
    if (!this.#o.scheduler.abortLocal(sessionId, new StopRequest(by), active.id)) {
      await this.#o.store.turns.requestCancel(active.id, by);
    }
    return true;
  }

  // ---- running turns ---------------------------------------------------------------------

  /** Make sure someone works through the session's mailbox (this process if it can). */
  kick(sessionId: string): void {
    if (this.#o.scheduler.stopping) return;
    void this.#o.scheduler.track(this.#drain(sessionId)).catch((error: unknown) => {
      this.#o.log.error({ err: error, sessionId }, 'session worker failed');
    });
  }

  async #drain(sessionId: string): Promise<void> {
    for (;;) {
      const worked = await this.#o.scheduler.withLease(sessionId, async (lease) => {
        while (!this.#o.scheduler.stopping) {
          const next = await this.#nextTurn(sessionId, lease.setTurn);
          if (next === 'idle' || next === 'blocked') return;
        }
      });
      // Whoever holds the lease drains the mailbox; after releasing it, look once more so a
      // message queued while we were finishing is never left behind.
      if (!worked || this.#o.scheduler.stopping) return;
      const active = await this.#o.store.turns.active(sessionId);
      if (active?.status === 'awaiting_approval' || !(await this.#o.store.inbound.hasQueued(sessionId))) return;
    }
  }

  async #nextTurn(sessionId: string, setTurn: (turnId: string) => AbortSignal): Promise<'ran' | 'idle' | 'blocked'> {
    const { store } = this.#o;
    const agent = this.#o.agent;
    const session = await store.sessions.get(sessionId);
    if (!session || !agent) return 'idle';
    const active = await store.turns.active(sessionId);
    if (active?.status === 'awaiting_approval') return 'blocked';
    if (active?.status === 'running') {
      // We hold the lease, so nobody runs it: a process died or stopped mid-turn. Continue it.
      await this.#execute(active, session, setTurn, (run) => agent.continue(run));
      return 'ran';
    }
    const first = await store.inbound.peekQueued(sessionId);
    if (!first) return 'idle';
    const turn = await store.turns.create({ sessionId, epoch: session.epoch, origin: originOf(first) });
    const claimed = await store.inbound.claimAsMessages(sessionId, turn.id, session.epoch);
    if (claimed.length === 0) {
      await store.turns.finish(turn.id, 'cancelled', 'nothing to answer');
      return 'idle';
    }
    await this.#execute(turn, session, setTurn, (run) => agent.start(run));
    return 'ran';
  }

  async #execute(
    turn: TurnRecord,
    session: SessionRecord,
    setTurn: (turnId: string) => AbortSignal,
    body: (run: TurnRun) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome | undefined> {
    const signal = setTurn(turn.id);
    const renderer = this.#renderer(turn);
    try {
      return await body({
        turn,
        session,
        signal,
        emit: renderer?.handle ?? (() => {}),
        takeSteering: () => this.#o.store.inbound.claimAsMessages(session.id, turn.id, turn.epoch),
      });
    } finally {
      await renderer?.close();
    }
  }

  /**
   * Continues a suspended turn once its approvals are decided (`decisions` are recorded first,
   * keyed by tool call id). Safe to call from any process, any number of times.
   */
  async resume(turnId: string, decisions: Record<string, Decision> = {}): Promise<TurnOutcome | undefined> {
    const agent = this.#o.agent;
    const turn = await this.#o.store.turns.get(turnId);
    if (!agent || !turn) return undefined;
    let outcome: TurnOutcome | undefined;
    await this.#o.scheduler.withLease(
      turn.sessionId,
      async (lease) => {
        const signal = lease.setTurn(turnId);
        const renderer = this.#renderer(turn);
        try {
          outcome = await agent.resume(turnId, decisions, {
            signal,
            emit: renderer?.handle ?? (() => {}),
            takeSteering: () => this.#o.store.inbound.claimAsMessages(turn.sessionId, turnId, turn.epoch),
          });
        } finally {
          await renderer?.close();
        }
      },
      10_000,
    );
    this.kick(turn.sessionId);
    return outcome;
  }

  /** Periodic maintenance; also run once at start (work left over by a stopped process). */
  async sweep(): Promise<void> {
    if (this.#sweeping || this.#o.scheduler.stopping) return this.#sweeping;
    this.#sweeping = (async () => {
      const { store, log } = this.#o;
      try {
        await this.#o.approvals?.sweep();
        await this.#pruneDeliveries();
        for (const turn of await store.turns.orphaned()) this.kick(turn.sessionId);
        for (const turn of await store.turns.decidedButSuspended()) {
          void this.#o.scheduler.track(this.resume(turn.id)).catch((error: unknown) => log.error({ err: error, turnId: turn.id }, 'resuming a decided turn failed'));
        }
        for (const sessionId of await store.inbound.sessionsWithQueued()) {
          if (!this.#o.scheduler.isBusy(sessionId)) this.kick(sessionId);
        }
      } catch (error) {
        log.warn({ err: error }, `maintenance sweep failed: ${errorText(error)}`);
      }
    })().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** De-duplication records only matter while a platform might re-deliver: keep a week, hourly. */
  async #pruneDeliveries(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastPrune < 3_600_000) return;
    this.#lastPrune = now;
    const removed = await this.#o.store.inbound.prune(new Date(now - 7 * 86_400_000));
    if (removed > 0) this.#o.log.debug({ removed }, 'pruned old delivery records');
  }

  // ---- output ----------------------------------------------------------------------------

  #renderer({ id: turnId, origin }: TurnRecord): ReplyRenderer | undefined {
    const adapter = this.#adapters.get(origin.chat.channel);
    if (!adapter) {
      this.#o.log.warn({ channel: origin.chat.channel }, 'no adapter for this channel in this process; replies are not shown');
      return undefined;
    }
    return new ReplyRenderer({
      adapter,
      chat: origin.chat,
      replyToMessageId: origin.replyToMessageId,
      log: this.#o.log,
      prompts: this.#o.approvals?.prompts,
      saveReplyState: async (state) => void (await this.#o.store.turns.saveReplyState(turnId, state)),
    });
  }

  async #reply(chat: ChatRef, text: string, inReplyTo?: Inbound): Promise<void> {
    const adapter = this.#adapters.get(chat.channel);
    if (!adapter) return;
    try {
      const replyTo = inReplyTo && chat.chatType === 'group' ? inReplyTo.messageId : undefined;
      await adapter.send(chat, { text, ...(replyTo ? { replyToMessageId: replyTo } : {}) });
    } catch (error) {
      this.#o.log.warn({ err: error, chat }, `could not send a reply: ${errorText(error)}`);
    }
  }
}

const CONTROL = new Set(['start', 'help', 'stop', 'reset', 'approve', 'deny', 'revoke']);

export function chatOf(inbound: Pick<Inbound, 'channel' | 'chatId' | 'chatType' | 'threadId'>): ChatRef {
  return {
    channel: inbound.channel,
    chatId: inbound.chatId,
    chatType: inbound.chatType,
    ...(inbound.threadId ? { threadId: inbound.threadId } : {}),
  };
}

function originOf(inbound: Inbound): TurnOrigin {
  return {
    chat: chatOf(inbound),
    requester: { id: inbound.sender.id, displayName: inbound.sender.displayName || inbound.sender.id },
    replyToMessageId: inbound.messageId,
  };
}

function helpText(botName: string, chatType: 'direct' | 'group'): string {
  const how =
    chatType === 'group'
      ? `In a group, mention me (@${botName}), reply to one of my messages, or use a command.`
      : 'Just write to me.';
  const list = COMMANDS.map((c) => `- /${c.name}${c.args ? ` ${c.args}` : ''}: ${c.description}`).join('\n');
  return `I am ${botName}. ${how}\n\n${list}`;
}

