// What the bot says when a limit holds a message back (src/gateway/limits.ts).
export const limits = {
  en: {
    'limit.slowDown': {
      one: 'Please slow down: I take at most {count} message a minute from one person. I will not read the extra ones; send them again in a minute.',
      other:
        'Please slow down: I take at most {count} messages a minute from one person. I will not read the extra ones; send them again in a minute.',
    },
    'limit.queueFull': {
      one: 'I still have {count} message of this conversation to work through, so I did not take this one. Please send it again once I have answered.',
      other:
        'I still have {count} messages of this conversation to work through, so I did not take this one. Please send it again once I have answered.',
    },
    'limit.personBudget': "You have used today's budget of {tokens} tokens with me. I can answer you again from {time} UTC ({wait}).",
    'limit.chatBudget': "This chat has used today's budget of {tokens} tokens. I can answer here again from {time} UTC ({wait}).",
    'limit.cut': 'Your message was {length} characters long; I read only the first {kept}.',
    'limit.waitHours': 'in {hours} h',
    'limit.waitMinutes': 'in {minutes} min',
    'limit.waitHoursMinutes': 'in {hours} h {minutes} min',
  },
  'zh-CN': {
    'limit.slowDown': { other: '请慢一点：每人每分钟最多给我发 {count} 条消息。多出的消息我不会处理，请稍后再发。' },
    'limit.queueFull': { other: '我还在处理这个对话里的 {count} 条消息，新的消息先不处理了。请等我回答后再发。' },
    'limit.personBudget': '你今天的用量已达上限（{tokens} 个 token）。{time} UTC（{wait}）起我可以再回答你。',
    'limit.chatBudget': '这个聊天今天的用量已达上限（{tokens} 个 token）。{time} UTC（{wait}）起我可以再回答。',
    'limit.cut': '你的消息有 {length} 个字符，太长了：我只读了前 {kept} 个。',
    'limit.waitHours': '{hours} 小时后',
    'limit.waitMinutes': '{minutes} 分钟后',
    'limit.waitHoursMinutes': '{hours} 小时 {minutes} 分钟后',
  },
} as const;
