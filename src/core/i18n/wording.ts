// A text someone else supplies that may be localised: a plain string (shown as it is, in every
// locale), a catalogue reference, or one string per locale (plugins' tool activity labels).
import { isTextKey, type TextKey } from './catalog.ts';
import { DEFAULT_LOCALE, type Locale } from './locale.ts';
import { type TextVars, textOf } from './text.ts';

export type Wording = string | { readonly key: TextKey; readonly vars?: TextVars } | Readonly<Partial<Record<Locale, string>>>;

export function wordingText(locale: Locale, wording: Wording): string {
  if (typeof wording === 'string') return wording;
  if ('key' in wording && typeof wording.key === 'string' && isTextKey(wording.key)) return textOf(locale, wording.key, wording.vars);
  const byLocale = wording as Readonly<Partial<Record<Locale, string>>>;
  return byLocale[locale] ?? byLocale[DEFAULT_LOCALE] ?? Object.values(byLocale).find((text) => typeof text === 'string') ?? '';
}
