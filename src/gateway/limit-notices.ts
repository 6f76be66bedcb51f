// What the bot says when a limit holds a message back, in the language the person wrote in
// (Chinese when the message has Han characters, otherwise English; see issue 35 for a full i18n).
export type NoticeLanguage = 'en' | 'zh';

export function languageOf(text: string): NoticeLanguage {
  return /\p{Script=Han}/u.test(text) ? 'zh' : 'en';
}

const grouped = (n: number) => n.toLocaleString('en-US');

/** "in 3 h 20 min" / "3 小时 20 分钟后" until `until`. */
function waitText(language: NoticeLanguage, until: Date, now: Date): string {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (language === 'zh') return `${hours ? `${hours} 小时 ` : ''}${rest ? `${rest} 分钟` : ''}后`.trim();
  return `in ${hours ? `${hours} h ` : ''}${rest ? `${rest} min` : ''}`.trim();
}

export const notices = {
  slowDown(language: NoticeLanguage, perMinute: number): string {
    return language === 'zh'
      ? `请慢一点：每人每分钟最多给我发 ${perMinute} 条消息。多出的消息我不会处理，请稍后再发。`
      : `Please slow down: I take at most ${perMinute} messages a minute from one person. I will not read the extra ones; send them again in a minute.`;
  },
  queueFull(language: NoticeLanguage, max: number): string {
    return language === 'zh'
      ? `我还在处理这个对话里的 ${max} 条消息，新的消息先不处理了。请等我回答后再发。`
      : `I still have ${max} messages of this conversation to work through, so I did not take this one. Please send it again once I have answered.`;
  },
  personBudget(language: NoticeLanguage, tokens: number, until: Date, now: Date): string {
    const at = until.toISOString().slice(11, 16);
    return language === 'zh'
      ? `你今天的用量已达上限（${grouped(tokens)} 个 token）。${at} UTC（${waitText(language, until, now)}）起我可以再回答你。`
      : `You have used today's budget of ${grouped(tokens)} tokens with me. I can answer you again from ${at} UTC (${waitText(language, until, now)}).`;
  },
  chatBudget(language: NoticeLanguage, tokens: number, until: Date, now: Date): string {
    const at = until.toISOString().slice(11, 16);
    return language === 'zh'
      ? `这个聊天今天的用量已达上限（${grouped(tokens)} 个 token）。${at} UTC（${waitText(language, until, now)}）起我可以再回答。`
      : `This chat has used today's budget of ${grouped(tokens)} tokens. I can answer here again from ${at} UTC (${waitText(language, until, now)}).`;
  },
  cut(language: NoticeLanguage, length: number, kept: number): string {
    return language === 'zh'
      ? `你的消息有 ${grouped(length)} 个字符，太长了：我只读了前 ${grouped(kept)} 个。`
      : `Your message was ${grouped(length)} characters long; I read only the first ${grouped(kept)}.`;
  },
  /** Appended to a cut message, for the model. */
  cutForModel(length: number, kept: number): string {
    return `\n\n[The rest of this message was cut: it was ${grouped(length)} characters long, and messages are limited to ${grouped(kept)}. Tell the sender if the cut part matters.]`;
  },
};
