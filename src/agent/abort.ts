// Reasons a turn's AbortSignal can carry.

/** A person asked to stop (/stop, the web console's stop button). The turn ends as cancelled. */
export class StopRequest extends Error {
  readonly by: string;
  constructor(by: string) {
    super(`Stopped by ${by}`);
    this.by = by;
  }
}

/** The process is shutting down: the turn is left `running` and continued after a restart. */
export class ShutdownRequest extends Error {
  constructor() {
    super('Parley is shutting down');
  }
}
