// A development set of hard questions over the grammY corpus, written the way people ask in a chat,
// by kind. Not used by any test and not tuned against: it exists to report retrieval per kind.
// `answers` are paths without the language prefix; `lang` is the language of the answer pages
// (for the cross-language kind it differs from the question's language). A hit on any answer counts.
export type HardKind = 'error' | 'identifier' | 'typo' | 'long' | 'cross' | 'paraphrase';

export interface HardQuestion {
  kind: HardKind;
  q: string;
  lang: 'en' | 'zh';
  answers: string[];
}

export const HARD_KINDS: HardKind[] = ['error', 'identifier', 'typo', 'long', 'cross', 'paraphrase'];

const en = (kind: HardKind, q: string, ...answers: string[]): HardQuestion => ({ kind, q, lang: 'en', answers });
const zh = (kind: HardKind, q: string, ...answers: string[]): HardQuestion => ({ kind, q, lang: 'zh', answers });

export const HARD_QUESTIONS: HardQuestion[] = [
  // Pasted error messages.
  en(
    'error',
    "GrammyError: Call to 'getUpdates' failed! (409: Conflict: terminated by other getUpdates request; make sure that only one bot instance is running)",
    'resources/faq',
    'guide/deployment-types',
  ),
  en('error', 'Error: 403: Forbidden: bot was blocked by the user', 'resources/faq'),
  en(
    'error',
    "400: Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 41",
    'resources/faq',
    'plugins/parse-mode',
  ),
  en(
    'error',
    "GrammyError: Call to 'sendMessage' failed! (429: Too Many Requests: retry after 35)",
    'advanced/flood',
    'plugins/auto-retry',
    'resources/faq',
    'plugins/transformer-throttler',
  ),
  en('error', "error TS2688: Cannot find type definition file for 'node-fetch'.", 'resources/faq'),
  en('error', "HttpError: Network request for 'getMe' failed!", 'guide/errors'),
  en(
    'error',
    'Error: Bot not initialized! Either call `await bot.init()`, or directly set the `botInfo` option in the `Bot` constructor',
    'hosting/cloudflare-workers',
    'guide/deployment-types',
    'advanced/deployment',
  ),
  en(
    'error',
    'Request timed out after 10000 ms (webhookCallback) and then Telegram sends the same update again and again',
    'guide/deployment-types',
  ),
  zh('error', '报错 401: Unauthorized 是什么意思', 'resources/faq'),
  zh('error', 'bot 报错 BotError: Error in middleware while handling update 怎么捕获', 'guide/errors'),

  // Code identifiers.
  en('identifier', 'ctx.answerCallbackQuery', 'plugins/keyboard', 'plugins/menu'),
  en('identifier', 'new InputFile("/tmp/picture.jpg")', 'guide/files'),
  en('identifier', 'bot.catch', 'guide/errors'),
  en('identifier', 'bot.api.config.use(autoRetry())', 'plugins/auto-retry'),
  en('identifier', 'sequentialize(getSessionKey)', 'plugins/runner', 'advanced/scaling'),
  en('identifier', 'webhookCallback(bot, "express")', 'guide/deployment-types', 'hosting/vps'),
  en('identifier', 'ctx.replyWithMediaGroup', 'plugins/media-group'),
  en('identifier', 'await conversation.waitFor("message:text")', 'plugins/conversations'),
  en('identifier', 'parse_mode: "HTML" in bot.api.sendMessage', 'guide/basics', 'plugins/parse-mode'),
  zh('identifier', 'allowed_updates 里加 chat_member', 'guide/filter-queries', 'plugins/chat-members'),

  // Typos and informal spelling.
  en('typo', 'how 2 make inline keybord buttns', 'plugins/keyboard'),
  en('typo', 'webhok vs long poling whats the diff', 'guide/deployment-types'),
  en('typo', 'sesion data not saving pls help', 'plugins/session'),
  en('typo', 'midleware next() not getting calld', 'guide/middleware', 'advanced/middleware'),
  en('typo', 'ratelimit ppl spamming my bot', 'plugins/ratelimiter'),
  en('typo', 'deploy on cloudflair wrokers', 'hosting/cloudflare-workers', 'hosting/cloudflare-workers-nodejs'),
  en('typo', 'tranlsate bot msgs into other langauges', 'plugins/i18n', 'plugins/fluent'),
  en('typo', 'upload a pic thats on my hard drive', 'guide/files'),
  zh('typo', 'webhok 怎么设置', 'guide/deployment-types'),
  zh('typo', '用 convresations 插件等待用户回复', 'plugins/conversations'),

  // Long questions full of side remarks.
  en(
    'long',
    "Hi everyone, sorry if this is a dumb question, I'm new to all this and English is not my first language. I made a little bot for our football club last weekend and my friends love it. The problem: when the bot sends a question I want people to tap a button below the message instead of typing. How do I put buttons under a message? Thanks a lot in advance!",
    'plugins/keyboard',
    'plugins/menu',
  ),
  en(
    'long',
    'Our group has about 3000 members and my boss wants the bot to greet everyone who joins, which honestly I find a bit annoying, but whatever, he pays. I tried bot.on("message:text") and nothing happens when someone joins. Which update do I listen to when a new member joins the group?',
    'guide/filter-queries',
    'plugins/chat-members',
  ),
  en(
    'long',
    "So I've been running my bot on my laptop for a month and it's been fine, but now I'm going on holiday and I'd like it to keep running when the laptop is closed. A friend mentioned renting a small linux server, and someone else said serverless, and now I'm confused. What is the simplest way to host it on a virtual server?",
    'hosting/vps',
    'hosting/comparison',
  ),
  en(
    'long',
    'Quick one (I hope): we have a shop bot, written in TypeScript, deployed on Fly, nothing fancy. Every time we redeploy, some messages that users sent during the restart seem to vanish and customers complain. How do we make sure no updates are lost when the bot restarts? We use long polling if that matters.',
    'advanced/reliability',
  ),
  en(
    'long',
    "I know this has probably been asked before and I searched the chat but couldn't find it. My bot asks people for their name, then their age, then their city, and right now I do it with a bunch of flags in a global variable which is a mess. Is there a cleaner way to ask several questions in a row and wait for each answer?",
    'plugins/conversations',
  ),
  en(
    'long',
    'Hello! Long-time lurker here. We send a daily digest to about 40,000 subscribers and after a few hundred messages everything starts failing, I think Telegram limits us somehow. Our server is fine, CPU is low. How do we broadcast to all users without hitting the limits?',
    'advanced/flood',
    'plugins/transformer-throttler',
  ),
  en(
    'long',
    "My bot is getting big, like 3000 lines in one index.ts file, and my colleague refuses to review it anymore (fair). We're three people working on it. How should we split the bot into several files or modules?",
    'advanced/structuring',
  ),
  zh(
    'long',
    '大家好，我是新手，刚开始学写 Telegram 机器人，可能问题比较基础，先说声抱歉。我们社团想做一个报名机器人，现在功能都写好了，本地运行也没问题。请问怎么把机器人部署到 Cloudflare Workers 上？谢谢大家！',
    'hosting/cloudflare-workers',
    'hosting/cloudflare-workers-nodejs',
  ),
  zh(
    'long',
    '我们的机器人用户越来越多了，老板很高兴，我却很头疼，因为高峰期回复特别慢，有时候要等好几秒。服务器配置应该够用。请问 grammY 怎么并发处理大量更新？',
    'plugins/runner',
    'advanced/scaling',
  ),
  zh(
    'long',
    '说来话长，我之前用 Python 写过一个机器人，现在团队决定改用 TypeScript，我也在慢慢适应。想问一下，每个用户的数据应该怎么在不同消息之间保存下来？之前是存在一个全局字典里的。',
    'plugins/session',
  ),

  // Chinese questions answered by an English page, and English questions answered by a Chinese page.
  zh('cross', '如何在消息下面添加内联键盘按钮', 'plugins/keyboard'),
  zh('cross', '有新成员进群时怎么自动发欢迎消息', 'guide/filter-queries', 'plugins/chat-members'),
  zh('cross', '机器人重启后怎么跳过积压的旧消息', 'plugins/middlewares', 'hosting/cloudflare-workers-nodejs'),
  zh('cross', '怎么限制用户发消息的频率', 'plugins/ratelimiter'),
  zh('cross', '用 webhook 部署到 VPS', 'hosting/vps', 'guide/deployment-types'),
  zh('cross', '会话数据存到数据库里', 'plugins/session'),
  zh('cross', '如何给机器人添加多语言支持', 'plugins/i18n', 'plugins/fluent'),
  en('cross', 'how do I store data for each user between messages', 'plugins/session'),
  en('cross', 'send several photos at once as an album', 'plugins/media-group'),
  en('cross', 'handle errors thrown inside middleware', 'guide/errors'),
  en('cross', 'react to a message with an emoji', 'guide/reactions', 'plugins/emoji'),

  // Paraphrases that share (almost) no word with the page.
  en('paraphrase', 'big tappable answer options instead of typing', 'plugins/keyboard'),
  en('paraphrase', 'remember things about each person who talks to the bot', 'plugins/session'),
  en('paraphrase', 'make the bot talk French to French people and German to Germans', 'plugins/i18n', 'plugins/fluent'),
  en(
    'paraphrase',
    "slow down so Telegram doesn't get angry when I message lots of people",
    'advanced/flood',
    'plugins/transformer-throttler',
    'plugins/auto-retry',
  ),
  en('paraphrase', 'a questionnaire that collects answers step by step', 'plugins/conversations'),
  en('paraphrase', 'thick letters, slanted letters and links in what the bot writes', 'plugins/parse-mode', 'guide/basics'),
  en('paraphrase', 'save the picture someone sent me onto my disk', 'guide/files', 'plugins/files'),
  en('paraphrase', 'put it on a rented linux box that never sleeps', 'hosting/vps'),
  zh('paraphrase', '让机器人记住每个人之前说过的设置', 'plugins/session'),
  zh('paraphrase', '别让一个人一秒钟狂发几十条把机器人拖垮', 'plugins/ratelimiter'),
  zh('paraphrase', '用户在任何聊天框里输入机器人的名字就能弹出结果', 'plugins/inline-query'),
];
