// What the bot says when a limit holds a message back, in the locale resolved for the message
// (src/gateway/locales.ts: the person's platform language, else the language they wrote in).
import { type Locale, t } from '../core/i18n/index.ts';

const grouped = (n: number) => n.toLocaleString('en-US');

/** "in 3 h 20 min" / "3 小时 20 分钟后" until `until`. */
function waitText(locale: Locale, until: Date, now: Date): string {
  const total = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  if (hours && minutes) return t(locale, 'limit.waitHoursMinutes', { hours, minutes });
  return hours ? t(locale, 'limit.waitHours', { hours }) : t(locale, 'limit.waitMinutes', { minutes });
}

const clock = (at: Date) => at.toISOString().slice(11, 16);

export const notices = {
  slowDown(locale: Locale, perMinute: number): string {
    return t(locale, 'limit.slowDown', { count: perMinute });
  },
  queueFull(locale: Locale, max: number): string {
    return t(locale, 'limit.queueFull', { count: max });
  },
  personBudget(locale: Locale, tokens: number, until: Date, now: Date): string {
    return t(locale, 'limit.personBudget', { tokens, time: clock(until), wait: waitText(locale, until, now) });
  },
  chatBudget(locale: Locale, tokens: number, until: Date, now: Date): string {
    return t(locale, 'limit.chatBudget', { tokens, time: clock(until), wait: waitText(locale, until, now) });
  },
  cut(locale: Locale, length: number, kept: number): string {
    return t(locale, 'limit.cut', { length, kept });
  },
  /** Appended to a cut message, for the model (whose words stay English). */
  cutForModel(length: number, kept: number): string {
    return `\n\n[The rest of this message was cut: it was ${grouped(length)} characters long, and messages are limited to ${grouped(kept)}. Tell the sender if the cut part matters.]`;
  },
};
