// The exclusive receivers of a process's channels, each run under a lease (receiver-leader.ts)
// renewed on the process heartbeat. Started after the adapters (their sinks must be ready).
import type { ChannelAdapter } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { Heartbeat } from './heartbeat.ts';
import { ReceiverLeader } from './receiver-leader.ts';

export interface ReceiversOptions {
  adapters: readonly ChannelAdapter[];
  store: Store;
  heartbeat: Heartbeat;
  leaseMs: number;
  log: Logger;
}

export interface Receivers {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function exclusiveReceivers(options: ReceiversOptions): Receivers {
  const { heartbeat, store, log } = options;
  const leaders = options.adapters.flatMap((adapter) => {
    const receiver = adapter.exclusiveReceiver?.();
    if (!receiver) return [];
    return [
      new ReceiverLeader({
        id: adapter.id,
        receiver,
        repo: store.receivers,
        owner: heartbeat.owner,
        leaseMs: options.leaseMs,
        beatMs: heartbeat.intervalMs,
        force: store.target.provider === 'sqlite',
        log,
      }),
    ];
  });
  let unregister: (() => void) | undefined;
  const tickAll = async (now: Date) => {
    const results = await Promise.allSettled(leaders.map((leader) => leader.tick(now)));
    for (const result of results) {
      if (result.status === 'rejected') log.warn({ err: result.reason }, 'a receiver could not be started; retrying on the next beat');
    }
  };
  return {
    async start() {
      if (leaders.length === 0) return;
      unregister = heartbeat.onBeat(tickAll);
      await tickAll(new Date());
    },
    async stop() {
      unregister?.();
      await Promise.all(leaders.map((leader) => leader.stop()));
    },
  };
}
