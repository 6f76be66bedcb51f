// Golden questions over the grammY corpus (../shared/corpora/grammy-docs), written as a user would
// ask them, not copied from headings. Each names the page(s) that answer it, by path under en/ or
// zh/ without ".md"; a hit on any of them counts. The same question exists in both languages.
export interface GoldenQuestion {
  en: string;
  zh: string;
  /** Relative paths without language prefix, e.g. "plugins/keyboard". */
  answers: string[];
}

export const GOLDEN_QUESTIONS: GoldenQuestion[] = [
  { en: 'send a message with buttons under it', zh: '如何在消息下面添加可以点击的按钮', answers: ['plugins/keyboard'] },
  { en: "replace the phone's keyboard with my own reply buttons", zh: '用自己的按钮替换用户的手机键盘', answers: ['plugins/keyboard'] },
  { en: 'store data for each user between messages', zh: '怎么在不同消息之间保存每个用户的数据', answers: ['plugins/session'] },
  {
    en: 'ask the user several questions in a row and wait for the answers',
    zh: '连续问用户几个问题并等待回答',
    answers: ['plugins/conversations'],
  },
  {
    en: 'my bot keeps getting 429 too many requests errors',
    zh: '机器人总是收到 429 请求过多的错误',
    answers: ['plugins/auto-retry', 'advanced/flood', 'plugins/transformer-throttler'],
  },
  { en: 'translate my bot into several languages', zh: '把机器人翻译成多种语言', answers: ['plugins/i18n', 'plugins/fluent'] },
  { en: 'run the bot on a cheap virtual server with systemd', zh: '在便宜的虚拟服务器上用 systemd 运行 bot', answers: ['hosting/vps'] },
  { en: 'what is the difference between webhooks and long polling', zh: 'webhook 和长轮询有什么区别', answers: ['guide/deployment-types'] },
  { en: 'handle errors thrown inside my middleware', zh: '处理中间件里抛出的错误', answers: ['guide/errors'] },
  { en: 'download a photo that a user sent to the bot', zh: '下载用户发送给 bot 的图片', answers: ['guide/files', 'plugins/files'] },
  { en: 'only react to messages that contain a photo', zh: '只处理包含照片的消息', answers: ['guide/filter-queries'] },
  {
    en: 'process updates concurrently for a busy bot',
    zh: '高流量的 bot 如何并发处理更新',
    answers: ['plugins/runner', 'advanced/scaling'],
  },
  { en: 'register the /start and /help commands', zh: '注册 /start 和 /help 命令', answers: ['guide/commands', 'plugins/commands'] },
  { en: 'stop a user from spamming the bot too often', zh: '限制用户向 bot 刷屏的频率', answers: ['plugins/ratelimiter'] },
  { en: 'connect to Telegram through a proxy', zh: '通过代理连接 Telegram', answers: ['advanced/proxy'] },
  { en: 'make text bold with HTML or Markdown formatting', zh: '用 HTML 或 Markdown 把文字设置为粗体', answers: ['plugins/parse-mode'] },
  {
    en: 'answer queries people type after @botname in any chat',
    zh: '回答用户在任意聊天中输入 @bot 名字后的查询',
    answers: ['plugins/inline-query'],
  },
  {
    en: 'deploy the bot to Cloudflare Workers',
    zh: '把 bot 部署到 Cloudflare Workers',
    answers: ['hosting/cloudflare-workers', 'hosting/cloudflare-workers-nodejs'],
  },
  { en: 'what is the ctx object my handlers receive', zh: '处理函数收到的 ctx 对象是什么', answers: ['guide/context'] },
  { en: 'split a big bot into several files', zh: '把一个很大的 bot 拆分成多个文件', answers: ['advanced/structuring'] },
  { en: 'what should I check before going to production', zh: '上线生产环境之前应该检查什么', answers: ['advanced/deployment'] },
  { en: 'react to a message with a thumbs up emoji', zh: '用表情对消息做出反应，比如点赞', answers: ['guide/reactions'] },
  { en: 'build a menu whose buttons navigate between pages', zh: '做一个可以在页面之间跳转的按钮菜单', answers: ['plugins/menu'] },
  { en: 'send an album of several photos at once', zh: '一次发送包含多张照片的相册', answers: ['plugins/media-group'] },
  { en: 'log how long each update takes while debugging', zh: '调试时记录每个更新花了多长时间', answers: ['plugins/console-time'] },
  { en: 'change every API request before it is sent', zh: '在每个 API 请求发送之前修改它', answers: ['advanced/transformers'] },
  { en: 'make sure no updates are lost when the bot restarts', zh: '确保 bot 重启时不会丢失更新', answers: ['advanced/reliability'] },
  { en: 'install grammY and write a first echo bot', zh: '安装 grammY 并写第一个回声机器人', answers: ['guide/getting-started'] },
  { en: 'which hosting providers have a free tier', zh: '哪些托管服务商可以免费使用', answers: ['hosting/comparison'] },
  { en: 'how does grammY compare to Telegraf', zh: 'grammY 和 Telegraf 相比怎么样', answers: ['resources/comparison'] },
  { en: 'check whether a user is a member of my channel', zh: '检查用户是否是某个频道的成员', answers: ['plugins/chat-members'] },
  { en: "always reply quoting the user's message", zh: '总是引用用户的消息进行回复', answers: ['plugins/autoquote'] },
  { en: "stream an LLM's answer as a draft message", zh: '把大模型的回答以草稿消息的形式流式输出', answers: ['plugins/stream'] },
  {
    en: 'call methods like delete() directly on the message object',
    zh: '直接在消息对象上调用 delete() 之类的方法',
    answers: ['plugins/hydrate'],
  },
  { en: 'manage messages on behalf of a business account', zh: '代表企业账号管理消息', answers: ['advanced/business'] },
  { en: 'HTML5 games inside Telegram', zh: 'Telegram 里的 HTML5 游戏', answers: ['guide/games'] },
  {
    en: 'send updates to different handlers depending on a condition',
    zh: '根据条件把更新分发到不同的处理函数',
    answers: ['plugins/router'],
  },
  { en: 'how does next() work in middleware', zh: '中间件里的 next() 是怎么工作的', answers: ['guide/middleware', 'advanced/middleware'] },
];

/** Messages that no page answers: automatic context should stay out of these. */
export const OFF_TOPIC_MESSAGES: string[] = [
  'hello!',
  'thanks, that helped',
  'what is the weather like in Berlin tomorrow?',
  'can you recommend a good pizza place',
  '你好',
  '谢谢你的帮助',
  '明天柏林的天气怎么样？',
  '推荐一家好吃的披萨店',
];

/**
 * The same needs asked in two to four words, as people type them into a chat: the automatic
 * context must treat a short question like a long one (a raw score grows with the question's length).
 */
export const SHORT_QUESTIONS: GoldenQuestion[] = [
  { en: 'inline keyboard buttons', zh: '内联键盘按钮', answers: ['plugins/keyboard'] },
  { en: 'session data', zh: '会话数据', answers: ['plugins/session'] },
  { en: 'webhook or long polling', zh: 'webhook 还是长轮询', answers: ['guide/deployment-types'] },
  { en: 'error handling', zh: '错误处理', answers: ['guide/errors'] },
  { en: 'download files', zh: '下载文件', answers: ['guide/files', 'plugins/files'] },
  { en: 'rate limit users', zh: '限制用户频率', answers: ['plugins/ratelimiter'] },
  { en: 'proxy', zh: '代理', answers: ['advanced/proxy'] },
  { en: 'internationalization', zh: '国际化', answers: ['plugins/i18n', 'plugins/fluent'] },
  { en: 'media group', zh: '媒体组', answers: ['plugins/media-group'] },
  { en: 'conversations plugin', zh: '对话插件', answers: ['plugins/conversations'] },
  { en: 'parse mode', zh: '解析模式', answers: ['plugins/parse-mode'] },
  { en: 'inline queries', zh: '内联查询', answers: ['plugins/inline-query'] },
  { en: 'chat members', zh: '聊天成员', answers: ['plugins/chat-members'] },
  { en: 'host on a VPS', zh: 'VPS 托管', answers: ['hosting/vps'] },
  { en: 'message reactions', zh: '消息反应', answers: ['guide/reactions'] },
  { en: 'menu plugin', zh: '菜单插件', answers: ['plugins/menu'] },
  { en: 'bot commands', zh: '机器人命令', answers: ['guide/commands', 'plugins/commands'] },
  { en: 'flood limits', zh: '洪水限制', answers: ['advanced/flood'] },
  { en: 'middleware', zh: '中间件', answers: ['guide/middleware', 'advanced/middleware'] },
  { en: 'Cloudflare Workers', zh: 'Cloudflare Workers 部署', answers: ['hosting/cloudflare-workers', 'hosting/cloudflare-workers-nodejs'] },
];
