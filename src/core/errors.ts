// Typed errors with a message meant for the person in the chat. Operators get the stack in the
// log; users only ever see `userMessage`.

export class ParleyError extends Error {
  readonly userMessage: string;
  /** The failure may go away by waiting (storage out of reach): the same work is worth another try later. */
  readonly retryable: boolean;
  constructor(message: string, userMessage: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.userMessage = userMessage;
    this.retryable = options?.retryable ?? false;
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof ParleyError && error.retryable;
}

export function userMessageOf(error: unknown): string {
  return error instanceof ParleyError ? error.userMessage : 'Something went wrong on my side. The details are in the log.';
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
