// Defect 4, at the renderer: the final answer must land. A channel that fails transiently or is
// rate limited gets the final render again (within the budget); one that cannot take it gets an
// explicit error message instead; a deleted message is replaced by a new one; streaming edits do
// not pile up behind a slow one. The channel here is scripted: every call is recorded and can be
// made to fail or be slow.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.ts';
import { DeliveryError } from '../../src/core/delivery.ts';
import type { ChannelCapabilities, ChannelAdapter, ChatRef, OutboundMessage, SentRef } from '../../src/core/types.ts';
import { OwedDelivery } from '../../src/gateway/owed.ts';
import { t } from '../../src/core/i18n/index.ts';
import { ReplyRenderer } from '../../src/gateway/renderer.ts';

const UNDELIVERED = t('en', 'chat.undelivered');
import type { OwedAnswersRepo } from '../../src/store/repos/owed-answers.ts';
import { waitFor } from '../helpers/harness.ts';

interface Call {
  op: 'send' | 'edit';
  messageId: string;
  text: string;
  ok: boolean;
  at: number;
}

class ScriptedChannel implements ChannelAdapter {
  readonly id = 'scripted';
  readonly kind = 'scripted';
  readonly capabilities: ChannelCapabilities;
  readonly messages = new Map<string, string>();
  readonly calls: Call[] = [];
  /** Decides each call's fate: undefined lets it through. */
  fail: (op: 'send' | 'edit', text: string, messageId: string) => Error | undefined = () => undefined;
  latencyMs = 0;
  /** While set, calls wait for it. */
  gate: Promise<void> | undefined;
  started = 0;
  #next = 1;

  constructor(capabilities: Partial<ChannelCapabilities> = {}) {
    this.capabilities = {
      maxTextLength: 4096,
      maxButtonPayload: 64,
      canEdit: true,
      canButtons: false,
      canEphemeral: false,
      hasThreads: false,
      hasTyping: true,
      repliesInDirect: false,
      editIntervalMs: { direct: 0, group: 0 },
      ...capabilities,
    };
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  typings = 0;
  async typing(): Promise<void> {
    this.typings++;
  }

  async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const messageId = String(this.#next);
    await this.#call('send', message.text, messageId);
    this.#next++;
    this.messages.set(messageId, message.text);
    return { channel: this.id, chatId: chat.chatId, messageId };
  }

  async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    const gone = this.messages.has(ref.messageId) ? undefined : new DeliveryError('message to edit not found', 'gone');
    await this.#call('edit', message.text, ref.messageId, gone);
    this.messages.set(ref.messageId, message.text);
  }

  async #call(op: 'send' | 'edit', text: string, messageId: string, refused?: Error): Promise<void> {
    this.started++;
    if (this.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    await this.gate;
    const error = refused ?? this.fail(op, text, messageId);
    this.calls.push({ op, messageId, text, ok: !error, at: Date.now() });
    if (error) throw error;
  }

  shown(): string[] {
    return [...this.messages.values()];
  }
}

function recordingLog() {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { log, errors: () => lines.filter((l) => l.level >= 50).map((l) => l.msg) };
}

const chat: ChatRef = { channel: 'scripted', chatId: 'c1', chatType: 'direct' };
const base = { turnId: 't1' };

function stream(renderer: ReplyRenderer, text: string): void {
  renderer.handle({ ...base, type: 'turn_start', sessionId: 's1', resumed: false });
  renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text });
}

function end(renderer: ReplyRenderer, text: string): void {
  const event: AgentEvent = {
    ...base,
    type: 'turn_end',
    status: 'done',
    text,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    rounds: 1,
  };
  renderer.handle(event);
}

const rateLimited = () => new DeliveryError('Too Many Requests: retry after 0.05', 'rate_limited', { retryAfterMs: 50 });

describe('reply renderer: the final answer lands', () => {
  it('retries a final edit that stays rate limited, and a transient failure, until it lands', async () => {
    const channel = new ScriptedChannel();
    const { log, errors } = recordingLog();
    const renderer = new ReplyRenderer({ adapter: channel, chat, log });
    stream(renderer, 'Half of');
    await waitFor(() => channel.messages.size === 1, 'the first streamed part');
    let refusals = 0;
    channel.fail = (op) =>
      op === 'edit' && ++refusals <= 6 ? (refusals === 1 ? new DeliveryError('Bad Gateway', 'transient') : rateLimited()) : undefined;
    renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ' the answer.' });
    end(renderer, 'Half of the answer.');
    await renderer.close();
    expect(channel.shown()).toEqual(['Half of the answer.']);
    expect(channel.calls.filter((c) => c.op === 'edit').map((c) => c.ok)).toEqual([false, false, false, false, false, false, true]);
    expect(errors()).toEqual([]);
  });

  it('sends an explicit error message when the answer cannot be delivered within the budget, and logs it', async () => {
    const channel = new ScriptedChannel();
    const { log, errors } = recordingLog();
    const renderer = new ReplyRenderer({ adapter: channel, chat, log, deliveryBudgetMs: 400 });
    channel.fail = (_op, text) => (text === 'The answer.' ? rateLimited() : undefined);
    stream(renderer, 'The answer.');
    end(renderer, 'The answer.');
    await renderer.close();
    expect(channel.shown()).toEqual([UNDELIVERED]);
    expect(channel.calls.filter((c) => c.text === 'The answer.').length).toBeGreaterThan(2);
    expect(errors()).toEqual([expect.stringMatching(/could not deliver an answer to scripted \(\d+ tries\): Too Many Requests/)]);
  });

  it('does not retry what waiting cannot fix: refused text gets the error message at once; a forbidden chat gets nothing more', async () => {
    const refusing = new ScriptedChannel();
    const first = recordingLog();
    const renderer = new ReplyRenderer({ adapter: refusing, chat, log: first.log });
    refusing.fail = (_op, text) => (text === 'Refused.' ? new DeliveryError('Bad Request: TEXT_INVALID', 'fatal') : undefined);
    stream(renderer, 'Refused.');
    end(renderer, 'Refused.');
    await renderer.close();
    expect(refusing.calls.filter((c) => c.text === 'Refused.')).toHaveLength(1);
    expect(refusing.shown()).toEqual([UNDELIVERED]);

    const blocked = new ScriptedChannel();
    const second = recordingLog();
    const other = new ReplyRenderer({ adapter: blocked, chat, log: second.log });
    blocked.fail = () => new DeliveryError('Forbidden: bot was blocked by the user', 'forbidden');
    stream(other, 'Hello?');
    end(other, 'Hello?');
    await other.close();
    expect(blocked.calls.map((c) => c.text)).toEqual(['Hello?']);
    expect(second.errors()).toEqual([expect.stringMatching(/could not deliver an answer.*bot was blocked/)]);
  });

  it('sends the answer anew when its message was deleted', async () => {
    const channel = new ScriptedChannel();
    const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log });
    stream(renderer, 'Streaming');
    await waitFor(() => channel.messages.size === 1, 'the first streamed part');
    channel.messages.delete('1'); // someone deleted it
    renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ' done.' });
    end(renderer, 'Streaming done.');
    await renderer.close();
    expect(channel.shown()).toEqual(['Streaming done.']);
    expect(channel.calls.at(-1)).toMatchObject({ op: 'send', messageId: '2', ok: true });
  });

  it('close() waits for work queued while it waits (the final answer is never left behind)', async () => {
    const channel = new ScriptedChannel();
    const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log });
    let open = () => {};
    channel.gate = new Promise<void>((resolve) => (open = resolve));
    stream(renderer, 'Part');
    await waitFor(() => channel.started === 1, 'the streaming send to be in flight');
    const closing = renderer.close();
    // The rest arrives while close() waits.
    renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ' and the rest.' });
    end(renderer, 'Part and the rest.');
    channel.gate = undefined;
    open();
    await closing;
    expect(channel.shown()).toEqual(['Part and the rest.']);
  });

  it('paces streaming edits by the interval even when the channel is slow (no edits piling up behind one in flight)', async () => {
    const channel = new ScriptedChannel({ editIntervalMs: { direct: 500, group: 500 } });
    channel.latencyMs = 60;
    const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log });
    renderer.handle({ ...base, type: 'turn_start', sessionId: 's1', resumed: false });
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 2_000) {
      renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ` w${n++}` });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const streamed = Date.now() - started;
    await renderer.flush();
    const renders = channel.calls.length;
    // One render per interval, plus at most one that waited for the one in flight.
    expect(renders).toBeLessThanOrEqual(Math.ceil(streamed / 500) + 2);
    end(renderer, 'x');
    await renderer.close();
    expect(channel.shown()[0]!.endsWith(` w${n - 1}`)).toBe(true);
  });

  it('shows typing only when the turn is still running after the typing delay, then until it ends', async () => {
    const quick = new ScriptedChannel();
    const fast = new ReplyRenderer({ adapter: quick, chat, log: recordingLog().log, typingDelayMs: 200 });
    stream(fast, 'At once.');
    end(fast, 'At once.');
    await fast.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quick.typings).toBe(0);

    const slow = new ScriptedChannel();
    const renderer = new ReplyRenderer({ adapter: slow, chat, log: recordingLog().log, typingDelayMs: 100, typingIntervalMs: 100 });
    renderer.handle({ ...base, type: 'turn_start', sessionId: 's1', resumed: false });
    await waitFor(() => slow.typings >= 2, 'typing, renewed while the turn runs');
    end(renderer, 'Later.');
    await renderer.close();
    const after = slow.typings;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(slow.typings).toBe(after);
    expect(slow.shown()).toEqual(['Later.']);
  });

  /** A renderer on a scripted channel that counts its reply-state saves. */
  function countingSaves(capabilities: Partial<ChannelCapabilities> = {}) {
    const channel = new ScriptedChannel(capabilities);
    const saved = { count: 0, states: [] as string[] };
    const renderer = new ReplyRenderer({
      adapter: channel,
      chat,
      log: recordingLog().log,
      saveReplyState: async (state) => {
        saved.count++;
        saved.states.push(state.unsent ? `sending ${state.unsent.chars} characters` : `${state.refs.length} message(s)`);
      },
    });
    return { channel, renderer, saved };
  }

  it('an answer complete at once is sent once, finished: no first part to edit, no reply state recorded', async () => {
    const { channel, renderer, saved } = countingSaves();
    stream(renderer, 'Quick');
    // The rest arrives a few ms later (the turn's last write in between).
    await new Promise((resolve) => setTimeout(resolve, 10));
    renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ' answer.' });
    end(renderer, 'Quick answer.');
    await renderer.close();
    expect(channel.calls.map((c) => [c.op, c.text])).toEqual([['send', 'Quick answer.']]);
    expect(saved.count).toBe(0);
  });

  it('a complete answer waits for its write instead of being streamed: sent once, finished, however long the write took within a second', async () => {
    const { channel, renderer, saved } = countingSaves();
    stream(renderer, 'Complete answer.');
    renderer.handle({ ...base, type: 'answer_complete', round: 1 });
    // Well past the first part's 40 ms: the turn's last write is slow (a busy database).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(channel.calls).toEqual([]);
    end(renderer, 'Complete answer.');
    await renderer.close();
    expect(channel.calls.map((c) => [c.op, c.text])).toEqual([['send', 'Complete answer.']]);
    expect(saved.count).toBe(0);
  });

  it('a complete answer whose write takes over a second is shown meanwhile', async () => {
    const { channel, renderer, saved } = countingSaves();
    stream(renderer, 'Complete answer.');
    renderer.handle({ ...base, type: 'answer_complete', round: 1 });
    await waitFor(() => channel.calls.length === 1, 'the answer shown while its write hangs', 3_000);
    expect(channel.calls.map((c) => [c.op, c.text])).toEqual([['send', 'Complete answer.']]);
    // Recorded as about to be sent, then as sent: a crash in between shows it again only marked.
    await waitFor(() => saved.count === 2, 'the message recorded');
    expect(saved.states).toEqual(['sending 16 characters', '1 message(s)']);
    end(renderer, 'Complete answer.');
    await renderer.close();
  });

  it('where sends are idempotent, a streamed message is recorded once, after its send', async () => {
    const { channel, renderer, saved } = countingSaves({ idempotentSends: true });
    stream(renderer, 'Slow');
    await waitFor(() => saved.count === 1, 'the message recorded', 1_000);
    end(renderer, 'Slow');
    await renderer.close();
    expect(channel.shown()).toEqual(['Slow']);
    expect(saved.states).toEqual(['1 message(s)']);
  });

  it('a longer stream shows its first part within moments, then edits it', async () => {
    const { channel, renderer, saved } = countingSaves();
    stream(renderer, 'Slow');
    await waitFor(() => channel.calls.length === 1, 'the first part', 1_000);
    // Recorded as about to be sent, then as sent (the channel has no idempotent sends).
    await waitFor(() => saved.count === 2, 'the message recorded');
    expect(saved.states).toEqual(['sending 4 characters', '1 message(s)']);
    renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ' answer.' });
    end(renderer, 'Slow answer.');
    await renderer.close();
    expect(channel.calls.map((c) => [c.op, c.text])).toEqual([
      ['send', 'Slow'],
      ['edit', 'Slow answer.'],
    ]);
  });

  describe('the answer owed until delivered (recorded by the write that finished the turn)', () => {
    /** The owed-answer writes a turn went through: the refs each update named, null for the clearing one. */
    function records() {
      const written: (number | null)[] = [];
      const intents: unknown[] = [];
      const repo: OwedAnswersRepo = {
        list: async () => [],
        claim: async () => false,
        async update(_turnId, by, next) {
          expect(by).toBe('me');
          written.push(JSON.parse(next).reply.refs.length);
          intents.push(JSON.parse(next).reply.unsent);
          return true;
        },
        async settle(_turnId, kind, by) {
          expect([kind, by]).toEqual(['answer', 'me']);
          written.push(null);
          intents.push(undefined);
          return true;
        },
      };
      return { owed: new OwedDelivery(repo, 't1', 'me'), written, intents };
    }

    it('a delivery that lands at its first try writes once where sends are idempotent: the record is cleared', async () => {
      const channel = new ScriptedChannel({ idempotentSends: true });
      const { owed, written } = records();
      const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log, owed });
      end(renderer, 'At once.');
      await renderer.close();
      expect(channel.shown()).toEqual(['At once.']);
      expect(written).toEqual([null]);
    });

    it('where sends are not idempotent, the send is recorded as about to be made first, then the record is cleared', async () => {
      const channel = new ScriptedChannel();
      const { owed, written, intents } = records();
      const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log, owed });
      end(renderer, 'At once.');
      await renderer.close();
      expect(channel.shown()).toEqual(['At once.']);
      expect(written).toEqual([0, null]);
      expect(intents).toEqual([{ index: 0, chars: 8 }, undefined]);
    });

    it('a refused send is retried; the record is cleared only once the answer landed', async () => {
      const channel = new ScriptedChannel();
      const { owed, written, intents } = records();
      const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log, owed });
      let refusals = 0;
      channel.fail = (op) => (op === 'send' && ++refusals <= 2 ? rateLimited() : undefined);
      let shownWhenCleared: string[] = [];
      const settle = owed.settle.bind(owed);
      owed.settle = (kind) => {
        shownWhenCleared = channel.shown();
        return settle(kind);
      };
      end(renderer, 'Later.');
      await renderer.close();
      expect(shownWhenCleared).toEqual(['Later.']);
      // Each refused try withdraws its intent (nothing was sent): a crash meanwhile repeats nothing.
      expect(intents).toEqual([{ index: 0, chars: 6 }, undefined, { index: 0, chars: 6 }, undefined, { index: 0, chars: 6 }, undefined]);
      expect(written).toEqual([0, 0, 0, 0, 0, null]);
    });

    it("an answer in several messages names each one in the write after its send (the next one's intent), but the last", async () => {
      const channel = new ScriptedChannel({ maxTextLength: 20 });
      const { owed, written } = records();
      const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log, owed });
      end(renderer, 'First part here.\n\nSecond part here.\n\nThird part.');
      await renderer.close();
      expect(channel.shown()).toHaveLength(3);
      expect(written).toEqual([0, 1, 2, null]);
    });

    it('a streamed message the reply state could not name (the turn ended first) is named before the final delivery', async () => {
      const channel = new ScriptedChannel();
      const { owed, written, intents } = records();
      const renderer = new ReplyRenderer({ adapter: channel, chat, log: recordingLog().log, owed, saveReplyState: async () => false });
      stream(renderer, 'Streaming');
      await waitFor(() => channel.calls.length === 1, 'the streamed part', 1_000);
      renderer.handle({ ...base, type: 'message_delta', round: 1, kind: 'text', text: ', then done.' });
      end(renderer, 'Streaming, then done.');
      await renderer.close();
      expect(channel.shown()).toEqual(['Streaming, then done.']);
      // The reply state refused the intent too (the turn had ended): the owed record took it.
      expect(intents).toEqual([{ index: 0, chars: 9 }, undefined, undefined]);
      expect(written).toEqual([0, 1, null]);
    });
  });
});
