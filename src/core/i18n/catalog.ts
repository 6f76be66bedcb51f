// The one catalogue of every text the bot itself writes (not the model's answers): one file per
// area under catalog/, each with all locales. Add an area by importing it here.
import { general } from './catalog/general.ts';
import { models } from './catalog/models.ts';
import { plugins } from './catalog/plugins.ts';
import type { Locale } from './locale.ts';

const AREAS = [general, models, plugins] as const;

type Area = (typeof AREAS)[number];
/** Every key of the catalogue. */
export type TextKey = Area extends infer A ? (A extends { en: infer E } ? keyof E & string : never) : never;

/** The catalogue per locale: key → template. */
export const CATALOG: Record<Locale, Readonly<Record<string, string>>> = {
  en: Object.assign({}, ...AREAS.map((area) => area.en)),
  'zh-CN': Object.assign({}, ...AREAS.map((area) => area['zh-CN'])),
};
