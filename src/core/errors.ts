// Typed errors with a message meant for the person in the chat. Operators get the stack in the
// log; users only ever see `userMessage`.

export class ParleyError extends Error {
  readonly userMessage: string;
  constructor(message: string, userMessage: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.userMessage = userMessage;
  }
}

export function userMessageOf(error: unknown): string {
  return error instanceof ParleyError ? error.userMessage : 'Something went wrong on my side. The details are in the log.';
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
