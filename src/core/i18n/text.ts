// t(locale, key, vars): a catalogue text with its {placeholders} filled in; a text that depends on
// a number is written per plural category (Intl.PluralRules: English one/other, Chinese other)
// and picked by `vars.count`.
import { CATALOG, type English, type Template, type TextKey } from './catalog.ts';
import { DEFAULT_LOCALE, type Locale } from './locale.ts';

const PLACEHOLDER = /\{(\w+)\}/g;

/** The placeholder names of a template string, as a type (`'a {x} b {y}'` → `'x' | 'y'`). */
type NamesIn<S> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | NamesIn<Rest> : never;
type NamesOf<T> = T extends string ? NamesIn<T> : { [Form in keyof T]: NamesIn<T[Form]> }[keyof T] | 'count';

/** The values a key's text needs: one per placeholder of its English text (`count` for a plural text). */
type VarsOf<K extends TextKey> = { readonly [Name in NamesOf<English[K]>]: string | number };
/** Any values, where the key is only known at run time. */
export type TextVars = Readonly<Record<string, string | number>>;
type VarsArgument<K extends TextKey> = [NamesOf<English[K]>] extends [never] ? [vars?: TextVars] : [vars: VarsOf<K>];

const pluralRules = new Map<Locale, Intl.PluralRules>();
const numberFormats = new Map<Locale, Intl.NumberFormat>();

function pluralFormOf(locale: Locale, count: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRules.set(locale, rules);
  }
  return rules.select(count);
}

/** A whole number the locale's way (16,000); others as they are. */
function numberText(locale: Locale, value: number): string {
  if (!Number.isInteger(value)) return String(value);
  let format = numberFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, { useGrouping: true });
    numberFormats.set(locale, format);
  }
  return format.format(value);
}

function templateFor(locale: Locale, template: Template, vars: TextVars): string {
  if (typeof template === 'string') return template;
  const form = pluralFormOf(locale, Number(vars.count ?? Number.NaN));
  return template[form] ?? template.other;
}

function fill(template: string, vars: TextVars, format: (value: number) => string): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!(name in vars)) return whole;
    const value = vars[name]!;
    return typeof value === 'number' ? format(value) : value;
  });
}

/**
 * The text for `key` in `locale` (English where the locale lacks it), placeholders filled from
 * `vars`. Numbers are written the locale's way (16,000).
 */
export function t<K extends TextKey>(locale: Locale, key: K, ...[vars]: VarsArgument<K>): string {
  return textOf(locale, key, vars ?? {});
}

/** t() for a key and values known only at run time (a stored reference to a text). */
export function textOf(locale: Locale, key: TextKey, vars: TextVars = {}): string {
  const template = CATALOG[locale][key] ?? CATALOG[DEFAULT_LOCALE][key];
  if (template === undefined) return key;
  return fill(templateFor(locale, template, vars), vars, (value) => numberText(locale, value));
}

/** The placeholder names a template uses, sorted (the i18n test compares them across locales). */
export function placeholdersOf(template: Template): string[] {
  const texts = typeof template === 'string' ? [template] : Object.values(template);
  const names = texts.flatMap((text) => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!));
  if (typeof template !== 'string') names.push('count');
  return [...new Set(names)].sort();
}

/** Braces that are not a well-formed {placeholder} (a typo such as `{ name}` or `{name`), for the test. */
export function strayBraces(template: Template): string[] {
  const texts = typeof template === 'string' ? [template] : Object.values(template);
  return texts.flatMap((text) => text.replace(PLACEHOLDER, '').match(/[{}]/g) ?? []);
}
