// Server-Sent Events: every open page subscribes to its chat and receives what changes in it.
import type { IncomingMessage, ServerResponse } from 'node:http';

interface Subscriber {
  res: ServerResponse;
}

const HEARTBEAT_MS = 20_000;

/** A page may have gone away without its 'close' being handled yet. */
function write(subscriber: Subscriber, frame: string): void {
  if (!subscriber.res.destroyed && !subscriber.res.writableEnded) subscriber.res.write(frame);
}

export class SseHub {
  readonly #chats = new Map<string, Set<Subscriber>>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor() {
    // Keeps proxies and idle-connection timeouts from closing quiet streams.
    this.#heartbeat = setInterval(() => this.#each((s) => write(s, ': keep-alive\n\n')), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  subscribe(chatId: string, req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const subscriber: Subscriber = { res };
    const set = this.#chats.get(chatId) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.#chats.set(chatId, set);
    req.socket.setNoDelay(true);
    res.on('close', () => {
      set.delete(subscriber);
      if (set.size === 0 && this.#chats.get(chatId) === set) this.#chats.delete(chatId);
    });
  }

  publish(chatId: string, event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const subscriber of this.#chats.get(chatId) ?? []) write(subscriber, frame);
  }

  close(): void {
    clearInterval(this.#heartbeat);
    this.#each((s) => s.res.end());
    this.#chats.clear();
  }

  #each(action: (subscriber: Subscriber) => void): void {
    for (const set of this.#chats.values()) for (const subscriber of set) action(subscriber);
  }
}
