// The page's own words for GET /api/texts: the catalogue's `web.*` texts in one locale, with their
// {placeholders} left for app.js to fill (the bot's name, a room, a person).
import { CATALOG, type Locale } from '../../src/core/i18n/index.ts';

export function pageTexts(locale: Locale): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [key, template] of Object.entries(CATALOG[locale])) {
    if (key.startsWith('web.') && typeof template === 'string') texts[key] = template;
  }
  return texts;
}
