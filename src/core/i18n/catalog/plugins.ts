// Texts of a project's own plugins' commands (src/framework): what the chat is told when one fails.
export const plugins = {
  en: {
    'plugins.commandFailed': 'The /{command} command failed. An admin can find the cause in the log.',
  },
  'zh-CN': {
    'plugins.commandFailed': '/{command} 命令执行失败。管理员可以在日志中查看原因。',
  },
} as const;
