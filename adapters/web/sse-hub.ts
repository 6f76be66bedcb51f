// Server-Sent Events: every open page subscribes to its chat and receives what changes in it, as
// its own browser identity sees it. Streams are capped per identity and in total; a stream is
// released when its client goes away (abort), when it falls too far behind, or when the hub closes.
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { HttpError } from './http.ts';

export interface StreamLimits {
  perViewer: number;
  total: number;
}

interface Subscriber {
  viewer: string;
  stream: SSEStreamingApi;
  /** Writes the client has not taken yet. */
  pending: number;
  end: () => void;
}

const HEARTBEAT_MS = 20_000;
/** A client that leaves this many frames unread is dropped (it reloads the history when it reconnects). */
const MAX_PENDING_FRAMES = 256;

export class SseHub {
  readonly #limits: StreamLimits;
  readonly #chats = new Map<string, Set<Subscriber>>();
  readonly #perViewer = new Map<string, number>();
  readonly #heartbeat: NodeJS.Timeout;
  #open = 0;
  #closed = false;

  constructor(limits: StreamLimits) {
    this.#limits = limits;
    // Keeps proxies and idle-connection timeouts from closing quiet streams.
    this.#heartbeat = setInterval(() => this.#each((s) => this.#write(s, ': keep-alive\n\n')), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** Streams currently open (all chats). */
  get size(): number {
    return this.#open;
  }

  /** Opens `viewer`'s event stream of the chat, or throws a 429/503 HttpError when a cap is reached. */
  open(c: Context, chatId: string, viewer: string): Response {
    if (this.#closed) throw new HttpError(503, 'the console is not running');
    const mine = this.#perViewer.get(viewer) ?? 0;
    if (mine >= this.#limits.perViewer) {
      throw new HttpError(
        429,
        `this browser already has ${mine} open event streams, the limit (PARLEY_WEB_MAX_STREAMS_PER_USER); close some console tabs`,
        {
          'retry-after': '5',
        },
      );
    }
    if (this.#open >= this.#limits.total) {
      throw new HttpError(503, `the console has ${this.#open} open event streams, its limit (PARLEY_WEB_MAX_STREAMS); try again later`, {
        'retry-after': '10',
      });
    }
    const release = this.#admit(viewer);
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      try {
        await this.#serve(chatId, viewer, stream);
      } finally {
        release();
      }
    });
  }

  /** Sends an event to every stream of the chat; `data` gives what one viewer is shown (undefined: nothing). */
  publish(chatId: string, event: string, data: (viewer: string) => unknown): void {
    const frames = new Map<string, string | null>();
    for (const subscriber of this.#chats.get(chatId) ?? []) {
      let frame = frames.get(subscriber.viewer);
      if (frame === undefined) {
        const shown = data(subscriber.viewer);
        frame = shown === undefined ? null : `event: ${event}\ndata: ${JSON.stringify(shown)}\n\n`;
        frames.set(subscriber.viewer, frame);
      }
      if (frame !== null) this.#write(subscriber, frame);
    }
  }

  /** Ends every stream of `viewer` (its pages open them again, and are identified again then). */
  endViewer(viewer: string): void {
    this.#each((s) => {
      if (s.viewer === viewer) s.end();
    });
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#each((s) => s.end());
  }

  /** Counts the stream against both caps; the returned release runs once. */
  #admit(viewer: string): () => void {
    this.#open++;
    this.#perViewer.set(viewer, (this.#perViewer.get(viewer) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open--;
      const left = (this.#perViewer.get(viewer) ?? 1) - 1;
      if (left > 0) this.#perViewer.set(viewer, left);
      else this.#perViewer.delete(viewer);
    };
  }

  async #serve(chatId: string, viewer: string, stream: SSEStreamingApi): Promise<void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const subscriber: Subscriber = { viewer, stream, pending: 0, end };
    stream.onAbort(end);
    if (this.#closed || stream.aborted) return;
    const set = this.#chats.get(chatId) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.#chats.set(chatId, set);
    try {
      this.#write(subscriber, 'retry: 2000\n\n');
      await ended;
    } finally {
      set.delete(subscriber);
      if (set.size === 0 && this.#chats.get(chatId) === set) this.#chats.delete(chatId);
    }
  }

  #write(subscriber: Subscriber, frame: string): void {
    if (subscriber.pending >= MAX_PENDING_FRAMES) {
      // Cancels the stream (its unread frames included) and ends the response.
      subscriber.stream.abort();
      return;
    }
    subscriber.pending++;
    void subscriber.stream.write(frame).finally(() => subscriber.pending--);
  }

  #each(action: (subscriber: Subscriber) => void): void {
    for (const set of this.#chats.values()) for (const subscriber of set) action(subscriber);
  }
}
