// Wake-ups: small events that tell the process which should act that it should, instead of every
// process polling the database. On PostgreSQL they travel by LISTEN/NOTIFY (wakeups-pg.ts); on
// SQLite, where one process runs, through an in-process emitter. A wake-up is a hint: the
// receiver re-reads the database before acting, so a duplicate or a stray one does no harm.
import { EventEmitter } from 'node:events';
import { z } from 'zod';

const wakeupSchema = z.discriminatedUnion('kind', [
  /** /stop for a turn that may run on another process. */
  z.object({ kind: z.literal('cancel'), turnId: z.string(), by: z.string() }),
  /** Processes that stopped beating were reaped: their turns want continuing. */
  z.object({ kind: z.literal('gone'), owners: z.array(z.string()) }),
  /** A new approval: whoever expires approvals arms its timer to the earliest expiry. */
  z.object({ kind: z.literal('approval'), expiresAt: z.number() }),
  /** An approval was decided where its turn cannot continue (`parley approvals approve`): sweep. */
  z.object({ kind: z.literal('decided'), turnId: z.string() }),
]);

export type Wakeup = z.infer<typeof wakeupSchema>;

/**
 * `resync`: events may have been missed (the listener was disconnected, or still is and this is
 * the slow safety poll): look at the database as a whole.
 */
export type WakeupEvent = Wakeup | { kind: 'resync' };

export interface Wakeups {
  publish(wakeup: Wakeup): Promise<void>;
  /** Calls `handler` for every wake-up (including this process's own) until unsubscribed. */
  subscribe(handler: (event: WakeupEvent) => void): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Part of the heartbeat: makes sure the listener still hears (a dead connection is replaced). */
  check(): Promise<void>;
}

/** The channel's payload as a wake-up, or undefined when it is not one (ignored). */
export function parseWakeup(payload: string | undefined): Wakeup | undefined {
  if (!payload) return undefined;
  try {
    const parsed = wakeupSchema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Fan-out to subscribers, shared by both transports. */
export class WakeupHub {
  readonly #emitter = new EventEmitter();

  constructor() {
    this.#emitter.setMaxListeners(0);
  }

  subscribe(handler: (event: WakeupEvent) => void): () => void {
    this.#emitter.on('wakeup', handler);
    return () => this.#emitter.off('wakeup', handler);
  }

  emit(event: WakeupEvent): void {
    // Handlers start their own async work; one throwing must not starve the others.
    for (const handler of this.#emitter.listeners('wakeup') as ((event: WakeupEvent) => void)[]) {
      try {
        handler(event);
      } catch {
        // A handler's own failure is its to report.
      }
    }
  }
}

/**
 * One process (SQLite): wake-ups never leave it. Another connection's writes (the `parley` CLI
 * deciding an approval) are noticed on the heartbeat's check, when `changedElsewhere` says so
 * (SQLite's data_version): a resync follows.
 */
export function localWakeups(options: { changedElsewhere?: () => Promise<boolean> } = {}): Wakeups {
  const hub = new WakeupHub();
  return {
    async publish(wakeup) {
      // Asynchronously, like a NOTIFY: the publisher finishes what it was doing first.
      setImmediate(() => hub.emit(wakeup));
    },
    subscribe: (handler) => hub.subscribe(handler),
    async start() {},
    async stop() {},
    async check() {
      if (await options.changedElsewhere?.()) hub.emit({ kind: 'resync' });
    },
  };
}
