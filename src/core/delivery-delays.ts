// A platform client that waits out a refusal by itself (grammY's auto-retry sleeping through a
// 429's retry-after, say) tells the sender about each attempt here, so that a sender that recorded
// "about to send" (a Telegram answer owed after a crash, see src/gateway/renderer.ts) can take it
// back while the attempt was refused (nothing was sent) and record it again before the next try.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AttemptWatcher {
  /** An attempt is about to be made (the first and every retry). */
  attempting(): Promise<void>;
  /** The platform answered the attempt with a refusal: nothing was sent. */
  refused(): Promise<void>;
}

const watchers = new AsyncLocalStorage<AttemptWatcher>();

/** Runs `send` with `watcher` told of each attempt a platform client makes inside it. */
export function watchAttempts<T>(watcher: AttemptWatcher, send: () => Promise<T>): Promise<T> {
  return watchers.run(watcher, send);
}

export async function reportAttempt(): Promise<void> {
  await watchers.getStore()?.attempting();
}

export async function reportRefusal(): Promise<void> {
  await watchers.getStore()?.refused();
}
