// Typed errors with a message meant for the person in the chat. Operators get the stack in the
// log; users only ever see `userMessage`, a catalogue text written in their language.
import { type Locale, type TextKey, type TextVars, textOf } from './i18n/index.ts';

/** A catalogue text an error shows people, written out in their locale when shown. */
export interface UserText {
  key: TextKey;
  vars?: TextVars;
}

export class ParleyError extends Error {
  readonly userMessage: UserText;
  /** The failure may go away by waiting (storage out of reach): the same work is worth another try later. */
  readonly retryable: boolean;
  constructor(message: string, userMessage: UserText, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.userMessage = userMessage;
    this.retryable = options?.retryable ?? false;
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof ParleyError && error.retryable;
}

export function userMessageOf(error: unknown, locale: Locale): string {
  const text = error instanceof ParleyError ? error.userMessage : { key: 'general.errorLogged' as const };
  return textOf(locale, text.key, text.vars);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
