// Texts of one area, in every locale. English is the source: its keys are the area's keys, and
// every other locale must have each of them (a missing key is a type error and fails
// test/core/i18n.test.ts). Placeholders are written {name} and must be the same in each locale.
export const general = {
  en: {
    'general.error': 'Something went wrong. Please try again in a moment.',
  },
  'zh-CN': {
    'general.error': '出了点问题，请稍后再试。',
  },
} as const;
