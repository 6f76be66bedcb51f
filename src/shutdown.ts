// Stopping within a bound whatever is unreachable (model, platform, database): every step of a
// shutdown has a deadline, and a final timer ends the process if something still hangs. A turn
// cut off this way stays `running` in the database and is continued by the next start.

export class StepTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms / 1000} s`);
    this.name = 'StepTimeout';
  }
}

/** `run()`, or a StepTimeout after `ms` (the step itself is left to run on, unobserved). */
export function withDeadline<T>(what: string, ms: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimeout(what, ms)), ms);
  });
  return Promise.race([Promise.resolve().then(run), late]).finally(() => clearTimeout(timer));
}

type Stoppable = { stop(): Promise<void> };

/**
 * Bounds an adapter's stop(), and its exclusive receiver's (long polling, a gateway session), which
 * the core stops on its own: a platform that does not answer cannot hold the others up.
 */
export function boundStop<A extends { readonly id: string; stop(): Promise<void>; exclusiveReceiver?(): Stoppable | undefined }>(
  adapter: A,
  ms: number,
): A {
  const what = `stopping ${adapter.id}`;
  const stop = adapter.stop.bind(adapter);
  adapter.stop = () => withDeadline(what, ms, stop);
  const receiverOf = adapter.exclusiveReceiver?.bind(adapter);
  if (receiverOf) {
    adapter.exclusiveReceiver = () => {
      const receiver = receiverOf();
      if (receiver) {
        const stopReceiving = receiver.stop.bind(receiver);
        receiver.stop = () => withDeadline(what, ms, stopReceiving);
      }
      return receiver;
    };
  }
  return adapter;
}

export interface ShutdownStep {
  what: string;
  ms: number;
  run(): Promise<unknown>;
}

/** Runs the steps in order, each bounded; a failed or late step is reported and the rest still run. True when all finished. */
export async function runSteps(steps: ShutdownStep[], report: (error: unknown, step: ShutdownStep) => void): Promise<boolean> {
  let clean = true;
  for (const step of steps) {
    try {
      await withDeadline(step.what, step.ms, () => step.run());
    } catch (error) {
      clean = false;
      report(error, step);
    }
  }
  return clean;
}

/** The last resort: `onExpire` after `ms`. Unref'd, so it never keeps a finished process alive. */
export function armHardExit(ms: number, onExpire: () => void): NodeJS.Timeout {
  const timer = setTimeout(onExpire, ms);
  timer.unref();
  return timer;
}
