// Texts the platform adapters write themselves (toasts and refusals before the core has a say).
export const adapters = {
  en: {
    'adapter.notYourButton': 'This button is not for you.',
    'adapter.noCommandsHere': 'I do not take commands here.',
  },
  'zh-CN': {
    'adapter.notYourButton': '这个按钮不是给你的。',
    'adapter.noCommandsHere': '我在这里不接受命令。',
  },
} as const;
