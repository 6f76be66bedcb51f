// A platform client that waits out a refusal by itself (grammY's auto-retry sleeping through a 429's
// retry-after, say) tells whoever asked for the send, through the async context of the call: the
// renderer records the answer as owed at that moment instead of after its slow-delivery timeout.
import { AsyncLocalStorage } from 'node:async_hooks';

const listeners = new AsyncLocalStorage<() => void>();

/** Runs `work`; `onDelay` hears of every refused or failed attempt made on its behalf. */
export function whileDelayed<T>(onDelay: () => void, work: () => Promise<T>): Promise<T> {
  return listeners.run(onDelay, work);
}

/** An attempt was refused or failed and will be retried (or given up on): the sender is told. */
export function reportDelay(): void {
  listeners.getStore()?.();
}
