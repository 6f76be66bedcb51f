// t(locale, key, vars): a catalogue text with its {placeholders} filled in.
import { CATALOG, type TextKey } from './catalog.ts';
import { DEFAULT_LOCALE, type Locale } from './locale.ts';

export type TextVars = Readonly<Record<string, string | number>>;

const PLACEHOLDER = /\{(\w+)\}/g;

/** The text for `key` in `locale` (English where the locale lacks it), placeholders filled from `vars`. */
export function t(locale: Locale, key: TextKey, vars: TextVars = {}): string {
  const template = CATALOG[locale][key] ?? CATALOG[DEFAULT_LOCALE][key] ?? key;
  return template.replace(PLACEHOLDER, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** The placeholder names a template uses, sorted (the i18n test compares them across locales). */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))].sort();
}
