// Human-in-the-loop decisions: who may decide, exactly-once recording, the audit log, prompt
// updates, expiry, and resuming the suspended turn on whichever process took the decision.
// Ack first: a decision has a quick part (look up the token, who asks, allowed?, the one
// conditional update, the grant, the audit row) whose outcome is the clicker's acknowledgement,
// and a slow part (editing the prompt, resuming the turn) that runs only after the ack, so a
// platform's 3 s deadline holds even when its edit API is slow or rate limited.
import type { ParsedCommand } from '../core/commands.ts';
import { errorText } from '../core/errors.ts';
import { DEFAULT_LOCALE, type Locale, localeOf, localeOrDefault, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Action, ChannelAdapter, Inbound, SentRef } from '../core/types.ts';
import { persist } from '../gateway/persist.ts';
import type { ApprovalHandler } from '../gateway/ports.ts';
import type { ApprovalPromptSink } from '../gateway/renderer.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { ApprovalRecord, Person, SessionRecord } from '../store/types.ts';
import { misplacedDecision, type DecisionPlace } from './place.ts';
import { approvalPrompt, outcomeText, parseButtonPayload, type ApprovalChoice } from './prompt.ts';

/** How long an approval prompt's update (showing the decision, buttons removed) is retried. */
const PROMPT_UPDATE_BUDGET_MS = 30_000;

export interface Actor extends Person {
  channel: string;
}

export interface DecisionResult {
  ok: boolean;
  /** What to tell the person who decided (toast, ephemeral message or reply), in CommonMark like every chat text. */
  message: string;
  approval?: ApprovalRecord;
}

/** The quick part's outcome before it is written out in the decider's language. */
interface Outcome {
  ok: boolean;
  text: Said;
  approval?: ApprovalRecord;
  settle?: ApprovalRecord;
}

/** A text to be written out once the decider's language is known. */
type Said = (locale: Locale) => string;

/** The quick part's outcome; `settle` is an approval whose prompt and turn the slow part handles. */
interface QuickDecision extends DecisionResult {
  settle?: ApprovalRecord;
}

interface DecisionRequest {
  token: string;
  actor: Actor;
  choice: ApprovalChoice;
  reason?: string;
  /** Where the press or the command came from; a decision counts only in the chat of the prompt. */
  place?: DecisionPlace;
  /** The operator, outside any chat (`parley approvals approve`): an admin of every channel. */
  operator?: boolean;
}

export interface ApprovalServiceOptions {
  store: Store;
  adapters: Map<string, ChannelAdapter>;
  /** "channel:userId" entries allowed to decide any approval. */
  admins: string[];
  log: Logger;
  /** Continues the turn once all its approvals are decided (the gateway's resume). */
  resume: (turnId: string) => Promise<unknown>;
  now?: () => Date;
}

const SYSTEM: Actor = { id: 'parley', displayName: 'Parley', channel: 'system' };

export class ApprovalService implements ApprovalHandler {
  readonly #o: ApprovalServiceOptions;
  readonly #admins: Set<string>;
  /** Slow parts and resumes still running (awaited by settled()). */
  readonly #background = new Set<Promise<unknown>>();

  constructor(options: ApprovalServiceOptions) {
    this.#o = options;
    this.#admins = new Set(options.admins);
  }

  readonly prompts: ApprovalPromptSink = {
    render: (approval, description, chat, locale) => {
      const capabilities = this.#o.adapters.get(chat.channel)?.capabilities;
      const buttons = capabilities?.canButtons ? { maxPayloadBytes: capabilities.maxButtonPayload } : undefined;
      return approvalPrompt(approval, description, { ...(buttons ? { buttons } : {}), now: this.#now(), locale });
    },
    sent: async (approval, ref) => {
      await this.#o.store.approvals.setPromptRef(approval.id, ref);
    },
  };

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }

  isAdmin(actor: Actor): boolean {
    return this.#admins.has(`${actor.channel}:${actor.id}`);
  }

  /** Resolves when prompt updates and resumes started by decisions so far have finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /**
   * Approve, deny or always-allow the approval named by `token`, both parts in a row (for trusted
   * callers outside any chat, with nobody to acknowledge first). Exactly one decision wins, across
   * clicks and processes; everyone else is told why not.
   */
  async decide(
    token: string,
    actor: Actor,
    choice: ApprovalChoice,
    reason?: string,
    locale: Locale = DEFAULT_LOCALE,
  ): Promise<DecisionResult> {
    const { settle, ...result } = this.#written(await this.#decideQuickly({ token, actor, choice, reason }), locale);
    if (settle) await this.#settle(settle);
    return result;
  }

  /** The outcome with its text written out in `locale`. */
  #written({ text, ...outcome }: Outcome, locale: Locale): QuickDecision {
    return { ...outcome, message: text(locale) };
  }

  /** The language of a turn's texts (its approvals' prompts, their outcomes): the one stored with it. */
  async #turnLocale(turnId: string): Promise<Locale> {
    return localeOrDefault((await this.#o.store.turns.get(turnId))?.origin.locale);
  }

  /**
   * A decision by the operator from the command line (`parley approvals approve|deny <code>`): the
   * same exactly-once update and audit as a button, by an admin of every channel. Only the quick
   * part runs here: the process has no adapter to edit the prompt with, so the running bot does
   * the rest when its maintenance sweep finds the decided turn (showOutcomes, then the resume).
   * `settleHere` (the web console's admin pages, inside the running bot): the slow part follows at
   * once, as after a button press.
   */
  async decideAsOperator(
    code: string,
    actor: Actor,
    choice: 'approve' | 'deny',
    reason?: string,
    settleHere = false,
  ): Promise<DecisionResult> {
    const approval = await this.#o.store.approvals.byCode(code);
    if (!approval) {
      await this.#audit(undefined, actor, choice, 'refused', `unknown code ${code}`);
      return { ok: false, message: t(DEFAULT_LOCALE, 'decision.unknownCode', { code }) };
    }
    const { settle, ...result } = this.#written(
      await this.#decideQuickly({ token: approval.token, actor, choice, reason, operator: true }),
      DEFAULT_LOCALE,
    );
    if (settle && settleHere) {
      this.#inBackground(
        this.#settle(settle).catch((error: unknown) =>
          this.#o.log.error({ err: error, approvalId: settle.id }, `settling an operator's decision failed: ${errorText(error)}`),
        ),
      );
    }
    return result;
  }

  /** Prompts of a turn decided elsewhere (the command line, a process that went away) are edited to show the outcome. */
  async showOutcomes(turnId: string): Promise<void> {
    for (const approval of await this.#o.store.approvals.forTurn(turnId)) {
      if (approval.status !== 'pending') await this.#updatePrompt(approval);
    }
  }

  /** The quick part: everything the acknowledgement's text depends on, nothing that waits on a platform. */
  async #decideQuickly({ token, actor, choice, reason, place, operator }: DecisionRequest): Promise<Outcome> {
    const { store } = this.#o;
    const approval = await store.approvals.byToken(token);
    if (!approval) {
      await this.#audit(undefined, actor, choice, 'refused', 'unknown token', token);
      return { ok: false, text: (l) => t(l, 'decision.unknownToken') };
    }
    const session = await store.sessions.get(approval.sessionId);
    if (!session || (!operator && session.channel !== actor.channel)) {
      await this.#audit(approval, actor, choice, 'refused', 'wrong channel');
      return { ok: false, text: (l) => t(l, 'decision.elsewhere') };
    }
    const misplaced = place ? misplacedDecision(approval, session, place) : undefined;
    if (misplaced) {
      await this.#audit(approval, actor, choice, 'refused', misplaced);
      return { ok: false, text: (l) => t(l, 'decision.elsewhere') };
    }
    if (approval.status !== 'pending') {
      await this.#audit(approval, actor, choice, 'refused', `already ${approval.status}`);
      return { ok: false, text: alreadyDecided(approval), approval };
    }
    if (approval.expiresAt.getTime() <= this.#now().getTime()) {
      const expired = await this.#expireQuickly(approval);
      await this.#audit(approval, actor, choice, 'refused', 'expired');
      return { ok: false, text: (l) => t(l, 'decision.tooLate'), approval, ...(expired ? { settle: expired } : {}) };
    }
    const isRequester = approval.requester.id === actor.id;
    if (!isRequester && !operator && !this.isAdmin(actor)) {
      await this.#audit(approval, actor, choice, 'refused', 'not requester or admin');
      const requester = markdownText(approval.requester.displayName);
      return { ok: false, text: (l) => t(l, 'decision.notYours', { requester }), approval };
    }
    const status = choice === 'deny' ? 'denied' : 'approved';
    const won = await store.approvals.decide(
      approval.id,
      { status, by: actor, ...(reason ? { reason } : {}), alwaysAllow: choice === 'always' },
      this.#now(),
    );
    const current = (await store.approvals.get(approval.id)) ?? approval;
    if (!won) {
      await this.#audit(current, actor, choice, 'refused', `already ${current.status}`);
      return { ok: false, text: alreadyDecided(current), approval: current };
    }
    await this.#audit(current, actor, choice, status);
    if (choice === 'always') await store.grants.grant(current.sessionId, current.toolName, `${actor.channel}:${actor.id}`);
    const text: Said =
      status === 'denied'
        ? (l) => t(l, 'decision.denied')
        : choice === 'always'
          ? (l) => t(l, 'decision.approvedAlways', { tool: markdownText(current.toolName) })
          : (l) => t(l, 'decision.approved');
    return { ok: true, text, approval: current, settle: current };
  }

  /** The slow part of a decision: the turn resumes while the prompt is edited to show the outcome. */
  async #settle(approval: ApprovalRecord): Promise<void> {
    this.#resumeLater(approval.turnId);
    await this.#updatePrompt(approval);
  }

  #inBackground(task: Promise<unknown>): void {
    this.#background.add(task);
    void task.finally(() => this.#background.delete(task));
  }

  /** A button press: decided, acknowledged with the outcome, and only then the slow part. */
  async handleAction(action: Action): Promise<boolean> {
    const parsed = parseButtonPayload(action.payload);
    if (!parsed) return false;
    const actor: Actor = { id: action.userId, displayName: action.displayName, channel: action.channel };
    const outcome = await this.#decideQuickly({ token: parsed.token, actor, choice: parsed.choice, place: action });
    // The clicker's language where the platform or the chat tells it, else that of the prompt's turn.
    const locale = localeOf(action.locale) ?? (outcome.approval ? await this.#turnLocale(outcome.approval.turnId) : DEFAULT_LOCALE);
    const { message, settle } = this.#written(outcome, locale);
    try {
      await action.reply.ack(message);
    } finally {
      if (settle) await this.#settle(await this.#withPromptRef(settle, action));
    }
    return true;
  }

  /**
   * A process killed between sending a prompt and storing where it went leaves no promptRef; the
   * clicked message is that prompt (its button carried the token), so edit that one.
   */
  async #withPromptRef(approval: ApprovalRecord, action: Action): Promise<ApprovalRecord> {
    if (approval.promptRef) return approval;
    const promptRef: SentRef = {
      channel: action.channel,
      chatId: action.chatId,
      messageId: action.messageId,
      ...(action.threadId ? { threadId: action.threadId } : {}),
    };
    await this.#o.store.approvals.setPromptRef(approval.id, promptRef).catch((error: unknown) => {
      this.#o.log.warn({ err: error, approvalId: approval.id }, `could not record where an approval prompt is: ${errorText(error)}`);
    });
    return { ...approval, promptRef };
  }

  async handleCommand(command: ParsedCommand, inbound: Inbound, session: SessionRecord): Promise<string> {
    const actor: Actor = { id: inbound.sender.id, displayName: inbound.sender.displayName || inbound.sender.id, channel: inbound.channel };
    const locale = localeOrDefault(inbound.locale);
    if (command.name === 'revoke') return this.#revoke(session, command.args, locale);
    const [codeArg, ...rest] = command.args.split(/\s+/).filter(Boolean);
    let approval = codeArg ? await this.#o.store.approvals.byCode(codeArg) : undefined;
    if (!codeArg) {
      // "/approve" alone: the only pending request of this conversation, if there is exactly one.
      const pending = await this.#o.store.approvals.list({ status: 'pending', sessionId: session.id, limit: 2 });
      if (pending.length !== 1) {
        return pending.length === 0 ? t(locale, 'decision.nonePending') : t(locale, 'decision.severalPending', { command: command.name });
      }
      approval = pending[0];
    }
    const choice = command.name === 'deny' ? 'deny' : 'approve';
    if (!approval) {
      await this.#audit(undefined, actor, choice, 'refused', `unknown code ${codeArg ?? ''}`);
      return t(locale, 'decision.unknownCodeHere', { code: markdownText(codeArg ?? '') });
    }
    const reason = rest.join(' ') || undefined;
    // The chat of the command, not its session: with PARLEY_GROUP_SESSION=per-user an admin decides
    // from their own session in the requester's chat.
    const place: DecisionPlace = { chatId: inbound.chatId, ...(inbound.threadId ? { threadId: inbound.threadId } : {}) };
    const { message, settle } = this.#written(await this.#decideQuickly({ token: approval.token, actor, choice, reason, place }), locale);
    // The reply (the command's acknowledgement) goes out first; the prompt edit and the resume follow.
    if (settle) this.#inBackground(this.#settle(settle));
    return message;
  }

  async #revoke(session: SessionRecord, args: string, locale: Locale): Promise<string> {
    const tool = args.trim() || undefined;
    const removed = await this.#o.store.grants.revoke(session.id, tool);
    if (removed === 0) return tool ? t(locale, 'reply.notAllowed', { tool: markdownText(tool) }) : t(locale, 'reply.nothingAllowed');
    return tool ? t(locale, 'reply.revokedTool', { tool: markdownText(tool) }) : t(locale, 'reply.revokedAll', { count: removed });
  }

  async turnStopped(turnId: string, by: string): Promise<void> {
    const { store } = this.#o;
    const turn = await store.turns.get(turnId);
    for (const approval of await store.approvals.forTurn(turnId)) {
      if (approval.status !== 'pending') continue;
      const reason = `the request was stopped by ${by}`;
      if (!(await store.approvals.decide(approval.id, { status: 'denied', by: SYSTEM, reason }, this.#now()))) continue;
      await this.#audit(approval, SYSTEM, 'deny', 'denied', reason);
      if (turn) {
        await store.messages.append({
          sessionId: approval.sessionId,
          epoch: turn.epoch,
          turnId,
          role: 'tool',
          content: `Not run: ${reason} before it was approved.`,
          toolCallId: approval.toolCallId,
          toolName: approval.toolName,
          isError: true,
        });
      }
      await this.#updatePrompt((await store.approvals.get(approval.id)) ?? approval);
    }
  }

  /** Expires due approvals (also those that expired while no process ran) and resumes their turns. */
  async sweep(): Promise<void> {
    for (const approval of await this.#o.store.approvals.due(this.#now())) await this.#expire(approval);
  }

  async #expire(approval: ApprovalRecord): Promise<void> {
    const expired = await this.#expireQuickly(approval);
    if (expired) await this.#settle(expired);
  }

  /** Records the expiry (once, across processes); the expired approval when this call won. */
  async #expireQuickly(approval: ApprovalRecord): Promise<ApprovalRecord | undefined> {
    const won = await this.#o.store.approvals.decide(approval.id, { status: 'expired', by: SYSTEM, reason: 'expired' }, this.#now());
    if (!won) return undefined;
    const current = (await this.#o.store.approvals.get(approval.id)) ?? approval;
    await this.#audit(current, SYSTEM, 'expire', 'expired');
    return current;
  }

  #resumeLater(turnId: string): void {
    this.#inBackground(
      this.#o
        .resume(turnId)
        .catch((error: unknown) =>
          this.#o.log.error({ err: error, turnId }, `resuming a turn after a decision failed: ${errorText(error)}`),
        ),
    );
  }

  async #updatePrompt(approval: ApprovalRecord): Promise<void> {
    const ref: SentRef | undefined = approval.promptRef;
    if (!ref) return;
    const adapter = this.#o.adapters.get(ref.channel);
    if (!adapter) return;
    const { log } = this.#o;
    // Retried while the platform says wait (rate limits) or fails transiently: a prompt left with
    // its buttons looks undecided (clicking them is harmless: "Already approved by ...").
    // In the language of the prompt: its turn's.
    const text = outcomeText(approval, await this.#turnLocale(approval.turnId));
    const result = await persist(() => adapter.edit(ref, { text, buttons: [] }), {
      budgetMs: PROMPT_UPDATE_BUDGET_MS,
      onRetry: (error, waitMs) =>
        log.warn(
          { err: error, approvalId: approval.id, waitMs },
          `updating an approval prompt failed; retrying in ${waitMs} ms: ${errorText(error)}`,
        ),
    });
    if (!result.ok)
      log.warn({ err: result.error, approvalId: approval.id }, `could not update an approval prompt: ${errorText(result.error)}`);
  }

  async #audit(
    approval: ApprovalRecord | undefined,
    actor: Actor,
    action: string,
    outcome: string,
    detail?: string,
    token?: string,
  ): Promise<void> {
    try {
      await this.#o.store.audit.record({
        ...(approval
          ? { approvalId: approval.id, token: approval.token, toolName: approval.toolName, argumentsHash: approval.argumentsHash }
          : {}),
        ...(token && !approval ? { token: token.slice(0, 64) } : {}),
        actor: { id: `${actor.channel}:${actor.id}`, displayName: actor.displayName },
        action,
        outcome,
        ...(detail ? { detail } : {}),
      });
    } catch (error) {
      this.#o.log.error({ err: error }, 'could not write the approval audit log');
    }
  }
}

function alreadyDecided(approval: ApprovalRecord): Said {
  if (approval.status === 'expired') return (l) => t(l, 'decision.alreadyExpired');
  const key = approval.status === 'denied' ? 'decision.alreadyDenied' : 'decision.alreadyApproved';
  return (l) => t(l, key, { name: approval.decidedBy ? markdownText(approval.decidedBy.displayName) : t(l, 'general.someone') });
}
