import { describe, expect, it } from 'vitest';
import { CATALOG, LOCALES, localeOf, placeholdersOf, resolveLocale, t } from '../../src/core/i18n/index.ts';

describe('the text catalogue', () => {
  const englishKeys = Object.keys(CATALOG.en).sort();

  it.each(LOCALES)('%s has every key English has, and no other', (locale) => {
    expect(Object.keys(CATALOG[locale]).sort()).toEqual(englishKeys);
  });

  it.each(LOCALES)('%s uses the same placeholders as English in each text', (locale) => {
    const differing = englishKeys.filter((key) => placeholdersOf(CATALOG[locale][key]!).join() !== placeholdersOf(CATALOG.en[key]!).join());
    expect(differing).toEqual([]);
  });

  it.each(LOCALES)('%s has no empty text', (locale) => {
    expect(Object.entries(CATALOG[locale]).filter(([, text]) => text.trim() === '')).toEqual([]);
  });
});

describe('locales', () => {
  it('maps platform tags to a locale', () => {
    expect(localeOf('zh-hans')).toBe('zh-CN');
    expect(localeOf('zh_cn')).toBe('zh-CN');
    expect(localeOf('en-US')).toBe('en');
    expect(localeOf('de')).toBeUndefined();
    expect(localeOf(null)).toBeUndefined();
  });

  it('uses a fixed setting, else the hint, else English', () => {
    expect(resolveLocale('en', 'zh_cn')).toBe('en');
    expect(resolveLocale('auto', 'zh_cn')).toBe('zh-CN');
    expect(resolveLocale('auto', 'fr')).toBe('en');
  });

  it('fills placeholders', () => {
    expect(t('zh-CN', 'general.error')).toBe('出了点问题，请稍后再试。');
  });
});
