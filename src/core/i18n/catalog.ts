// The one catalogue of every text the bot itself writes (not the model's answers): one file per
// area under catalog/, each with all locales. Add an area by importing it here.
import { adapters } from './catalog/adapters.ts';
import { approvals } from './catalog/approvals.ts';
import { chat } from './catalog/chat.ts';
import { commands } from './catalog/commands.ts';
import { general } from './catalog/general.ts';
import { limits } from './catalog/limits.ts';
import { media } from './catalog/media.ts';
import { models } from './catalog/models.ts';
import { plugins } from './catalog/plugins.ts';
import { web } from './catalog/web.ts';
import { webAdmin } from './catalog/web-admin.ts';
import type { Locale } from './locale.ts';

/** A text: one string, or one per plural category (Intl.PluralRules) picked by the `count` value. */
export type Template = string | PluralTemplate;
type PluralTemplate = Readonly<Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }>;

/** One area: English is the source, every other locale has each of its keys (checked here and by the test). */
type Area<E extends Record<string, Template>> = { readonly en: E } & {
  readonly [L in Exclude<Locale, 'en'>]: { readonly [K in keyof E]: Template };
};

function area<E extends Record<string, Template>>(texts: Area<E>): Area<E> {
  return texts;
}

const AREAS = [
  area(general),
  area(chat),
  area(commands),
  area(approvals),
  area(limits),
  area(adapters),
  area(web),
  area(webAdmin),
  area(media),
  area(models),
  area(plugins),
] as const;

type AreaTexts = (typeof AREAS)[number]['en'];
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The English texts of every area, by key (the source of each key's placeholders). */
export type English = UnionToIntersection<AreaTexts>;
/** Every key of the catalogue. */
export type TextKey = keyof English & string;

/** The catalogue per locale: key → template. */
export const CATALOG: Record<Locale, Readonly<Record<string, Template>>> = {
  en: Object.assign({}, ...AREAS.map((texts) => texts.en)),
  'zh-CN': Object.assign({}, ...AREAS.map((texts) => texts['zh-CN'])),
};

/** True when `key` names a text of the catalogue (for keys built at run time). */
export function isTextKey(key: string): key is TextKey {
  return Object.hasOwn(CATALOG.en, key);
}
