// Session scheduling: whoever holds a session's lease works through its mailbox one turn at a
// time, continues a turn left running by a process that went away, and resumes decided turns.
import { localeOrDefault, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import { StopRequest } from '../agent/abort.ts';
import type { Agent, TurnOutcome, TurnRun } from '../agent/agent.ts';
import { textForModel } from '../core/attachments.ts';
import { type Inbound, InboundSchema } from '../core/types.ts';
import type { Logger } from '../log.ts';
import { contentKey, type PreparedContents } from '../store/repos/inbound.ts';
import type { SessionState } from '../store/repos/turn-reads.ts';
import type { Store } from '../store/store.ts';
import type { TurnRecord } from '../store/types.ts';
import type { Output } from './output.ts';
import type { ReplyRenderer } from './renderer.ts';
import type { ApprovalHandler, MessageMedia } from './ports.ts';
import type { LeasedLook, SessionScheduler } from './scheduler.ts';
import { chatOf, originOf } from './session-key.ts';

export interface SessionRunnerOptions {
  store: Store;
  agent?: Agent;
  scheduler: SessionScheduler;
  output: Output;
  log: Logger;
  approvals?: ApprovalHandler;
  /** Reads attachments (downloads, images, transcription, documents) before their messages join a turn. */
  media?: MessageMedia;
}

export class SessionRunner {
  readonly #o: SessionRunnerOptions;

  constructor(options: SessionRunnerOptions) {
    this.#o = options;
  }

  /** Make sure someone works through the session's mailbox (this process if it can). */
  kick(sessionId: string): void {
    if (this.#o.scheduler.stopping) return;
    void this.#o.scheduler.track(this.#drain(sessionId)).catch((error: unknown) => {
      this.#o.log.error({ err: error, sessionId }, 'session worker failed');
    });
  }

  /** Stops the session's unfinished turn, wherever it runs. True when there was one. */
  async stopSession(sessionId: string, by: string): Promise<boolean> {
    const active = await this.#o.store.turns.active(sessionId);
    if (!active) return false;
    if (active.status === 'awaiting_approval') {
      if (await this.#o.store.turns.transition(active.id, 'awaiting_approval', 'cancelled')) {
        await this.#o.approvals?.turnStopped(active.id, by);
        await this.#o.output.reply(
          active.origin.chat,
          t(localeOrDefault(active.origin.locale), 'chat.stoppedBy', { name: markdownText(by) }),
        );
      }
      return true;
    }
    // Running here: abort now (the turn announces it). Elsewhere: that process is woken.
    if (!this.#o.scheduler.abortLocal(sessionId, new StopRequest(by), active.id)) {
      await this.#o.scheduler.requestStop(active.id, by);
    }
    return true;
  }

  /**
   * The common case, a message for the model in an idle chat: recorded, its turn started and the
   * session's lease taken in one write, then the turn runs (the session's worker goes on from
   * there). 'not-now' (nothing written): the session is busy, unknown or leased elsewhere, or this
   * process is stopping; the message is to be queued instead.
   */
  async startNow(key: string, inbound: Inbound): Promise<'started' | 'duplicate' | 'not-now'> {
    const { agent, store, scheduler } = this.#o;
    if (!agent) return 'not-now';
    const started = await scheduler.startFresh(key, (owner, leaseMs) =>
      store.turnStart.fromMessage({
        key,
        inbound,
        owner,
        leaseMs,
        origin: originOf(inbound),
        content: this.#o.media?.describe(inbound) ?? textForModel(inbound),
      }),
    );
    if (started === undefined) return 'not-now';
    if (started === 'duplicate') return 'duplicate';
    const first = started.run(async (lease) => {
      await this.#execute(started.turn, lease.state, lease.setTurn, (run) =>
        agent.start({ ...run, historyChecked: started.historyChecked }),
      );
    });
    void scheduler.track(this.#drain(started.state.session.id, first)).catch((error: unknown) => {
      this.#o.log.error({ err: error, sessionId: started.state.session.id }, 'session worker failed');
    });
    return 'started';
  }

  /** `first`: a turn already running under the session's lease (startNow); its look comes first. */
  async #drain(sessionId: string, first?: Promise<LeasedLook>): Promise<void> {
    for (let pending = first; ; pending = undefined) {
      // One turn per lease: the look after releasing it (made by the releasing statement) decides
      // whether there is more to do, so a message queued while we were finishing is never left
      // behind (and the mailbox is read once per turn, not before and after the release).
      const look =
        (await pending) ??
        (await this.#o.scheduler.withLeaseThenLook(sessionId, async (lease) => {
          if (!this.#o.scheduler.stopping) await this.#nextTurn(lease.state, lease.setTurn);
        }));
      if (!look.worked || this.#o.scheduler.stopping) return;
      const state = look.after;
      // An unfinished turn (suspended, or left running for the sweep) holds the mailbox back.
      if (!state || state.active || !state.queuedPayload) return;
    }
  }

  async #nextTurn(state: SessionState, setTurn: (turnId: string) => AbortSignal): Promise<'ran' | 'idle' | 'blocked'> {
    const { store } = this.#o;
    const agent = this.#o.agent;
    if (!agent) return 'idle';
    const { session, active } = state;
    if (active?.status === 'awaiting_approval') return 'blocked';
    if (active?.status === 'running') {
      // We hold the lease, so nobody runs it: a process died or stopped mid-turn. Continue it.
      const turn = await store.turns.get(active.id);
      if (!turn) return 'idle';
      return this.#after(await this.#execute(turn, state, setTurn, (run) => agent.continue(run)));
    }
    if (!state.queuedPayload) return 'idle';
    const first = InboundSchema.parse(JSON.parse(state.queuedPayload));
    const prepared = await this.#prepareQueued(session.id);
    // The turn, its claimed messages and their user messages are written in one transaction.
    const started = await store.turns.startWithQueued({
      sessionId: session.id,
      epoch: session.epoch,
      origin: originOf(first),
      ...(prepared ? { prepared } : {}),
    });
    if (!started) return 'idle';
    const { turn } = started;
    return this.#after(await this.#execute(turn, state, setTurn, (run) => agent.start(run)));
  }

  /** The queued messages, claimed into the turn (steering), their attachments read first. */
  async #takeSteering(sessionId: string, turnId: string, epoch: number): Promise<Inbound[]> {
    const prepared = await this.#prepareQueued(sessionId);
    // Nothing was queued when looked at: what came since waits for the next look, to be read first.
    if (this.#o.media && !prepared) return [];
    return this.#o.store.inbound.claimAsMessages(sessionId, turnId, epoch, 50, prepared);
  }

  /**
   * The contents of the queued messages whose attachments are to be read (downloaded, transcribed,
   * extracted: this can take a while, so it is done here, under the session's lease, never where
   * the message comes in). What cannot be used is told to the chat as it is found.
   */
  async #prepareQueued(sessionId: string): Promise<PreparedContents | undefined> {
    const media = this.#o.media;
    if (!media) return undefined;
    const queued = await this.#o.store.inbound.queued(sessionId);
    const last = queued.at(-1);
    if (!last) return undefined;
    const contents = new Map<string, string>();
    for (const { inbound } of queued) {
      if (inbound.attachments.length === 0) continue;
      if (!media.needsPreparing(inbound)) {
        contents.set(contentKey(inbound), media.describe(inbound));
        continue;
      }
      const made = await media.prepare(inbound, { sessionId });
      contents.set(contentKey(inbound), made.content);
      for (const notice of made.notices) {
        await this.#o.output
          .reply(chatOf(inbound), notice, inbound)
          .catch((error: unknown) => this.#o.log.warn({ err: error }, 'could not tell the chat about an attachment'));
      }
    }
    return { contents, upToId: last.id };
  }

  /** A turn left running (its storage failed under it) is not retried at once: the sweep continues it later. */
  #after(outcome: TurnOutcome | undefined): 'ran' | 'blocked' {
    return outcome?.status === 'running' ? 'blocked' : 'ran';
  }

  async #execute(
    turn: TurnRecord,
    { session, memory }: SessionState,
    setTurn: (turnId: string) => AbortSignal,
    body: (run: TurnRun) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome | undefined> {
    const signal = setTurn(turn.id);
    const renderer = await this.#o.output.renderer(turn);
    let outcome: TurnOutcome | undefined;
    try {
      outcome = await body({
        turn,
        session,
        signal,
        ...(memory ? { preread: { memory } } : {}),
        emit: renderer?.handle ?? (() => {}),
        takeSteering: () => this.#takeSteering(session.id, turn.id, turn.epoch),
      });
      return outcome;
    } finally {
      // The answer is delivered without holding up the session's next turn (its output waits for this one).
      void this.#deliver(turn, renderer, outcome);
    }
  }

  /** Delivers the turn's output, and clears what its end recorded as owed when nothing here can show it. */
  #deliver(turn: TurnRecord, renderer: ReplyRenderer | undefined, outcome: TurnOutcome | undefined): Promise<void> {
    const { output } = this.#o;
    const delivered = async () => {
      await renderer?.close();
      if (outcome?.status === 'awaiting_approval') await output.promptsShown(turn);
      else if (!renderer && outcome?.status === 'done') await output.nothingOwed(turn.id);
    };
    return this.#o.scheduler.track(delivered()).catch((error: unknown) => this.#o.log.warn({ err: error }, 'delivering an answer failed'));
  }

  /** Continues a suspended turn once its approvals are decided. Safe from any process, any number of times. */
  async resume(turnId: string): Promise<TurnOutcome | undefined> {
    const agent = this.#o.agent;
    const turn = await this.#o.store.turns.get(turnId);
    if (!agent || !turn) return undefined;
    let outcome: TurnOutcome | undefined;
    let delivered: Promise<void> | undefined;
    await this.#o.scheduler.withLease(
      turn.sessionId,
      async (lease) => {
        const signal = lease.setTurn(turnId);
        const renderer = await this.#o.output.renderer(turn);
        try {
          outcome = await agent.resume(turnId, {
            signal,
            emit: renderer?.handle ?? (() => {}),
            takeSteering: () => this.#takeSteering(turn.sessionId, turnId, turn.epoch),
          });
        } finally {
          delivered = this.#deliver(turn, renderer, outcome);
        }
      },
      10_000,
    );
    this.kick(turn.sessionId);
    await delivered;
    return outcome;
  }
}
