// A message of an answer that a process sent but died before recording (Telegram has no idempotent
// send, so it cannot be found again, edited or replaced) shows the start of that answer, cut. The
// continued turn asks the model again for the interrupted round, whose text may differ, and the
// message may not even have landed: the answer is shown whole in a new message, marked as the
// continuation after a restart, so the cut one above it reads as what it is.
import { type Locale, t } from '../core/i18n/index.ts';

export function continuationOf(piece: string, locale: Locale): string {
  return `${t(locale, 'chat.continuedMarker')}\n\n${piece}`;
}
