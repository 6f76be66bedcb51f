// Texts of one area, in every locale. English is the source: its keys are the area's keys, and
// every other locale must have each of them (a missing key is a type error and fails
// test/core/i18n.test.ts). Placeholders are written {name} and must be the same in each locale; a
// text that depends on a number is an object of plural forms (one/other...) chosen by {count}.
export const general = {
  en: {
    'general.error': 'Something went wrong. Please try again in a moment.',
    'general.errorLogged': 'Something went wrong on my side. The details are in the log.',
    'general.tryAgain': 'Something went wrong; please try again.',
    'general.done': 'Done.',
    'general.doneCommand': 'Done: /{command}',
    'general.database': 'I could not reach my database just now, so nothing was done. Please try again in a moment.',
    'general.someone': 'someone',
  },
  'zh-CN': {
    'general.error': '出了点问题，请稍后再试。',
    'general.errorLogged': '我这边出了点问题，详情已记录在日志中。',
    'general.tryAgain': '出了点问题，请再试一次。',
    'general.done': '完成。',
    'general.doneCommand': '已执行：/{command}',
    'general.database': '我暂时连不上数据库，这次什么也没做。请稍后再试。',
    'general.someone': '某人',
  },
} as const;
