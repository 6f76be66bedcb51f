// Synonyms: groups of words and phrases (English and Chinese, and across the two) that mean the
// same in questions about bots and chats. A query that contains one member also searches for the
// others, at a lower weight. Parley ships a small list; admins extend it with
// `parley knowledge synonyms add`, which keeps their groups in the page SYNONYMS_SLUG (one group per
// list item, members separated by commas), so the list lives in the database, has a history, and
// reaches every process with the index.
import type { Tokenize } from '../tokenizer.ts';

export const SYNONYMS_SLUG = 'parley/synonyms';

/** A synonym counts this much of the word it stands for; one in another script (中文 ↔ Latin) less. */
const SYNONYM_WEIGHT = 0.5;
const CROSS_SCRIPT_WEIGHT = 0.15;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export const BUILTIN_SYNONYMS: readonly (readonly string[])[] = [
  // Chats and their parts.
  ['message', 'msg', '消息', '信息'],
  ['button', 'btn', '按钮', '按键'],
  ['keyboard', '键盘'],
  ['menu', '菜单'],
  ['command', 'cmd', '命令', '指令'],
  ['group', 'group chat', '群', '群组', '群聊'],
  ['channel', '频道'],
  ['private chat', 'direct message', 'dm', '私聊'],
  ['user', '用户'],
  ['member', '成员'],
  ['admin', 'administrator', '管理员'],
  ['join', '加入', '进群', '入群'],
  ['leave', '离开', '退群'],
  ['ban', 'kick', '封禁', '踢出'],
  ['mention', '提及'],
  ['welcome', 'greet', '欢迎'],
  ['thread', 'topic', '话题'],
  ['quote', '引用'],
  ['reply', 'respond', '回复', '答复'],
  ['send', '发送'],
  ['edit', '编辑'],
  ['delete', 'remove', '删除'],
  ['forward', '转发'],
  ['photo', 'picture', 'pic', 'image', 'img', '图片', '照片'],
  ['video', '视频'],
  ['file', 'document', '文件'],
  ['download', '下载'],
  ['upload', '上传'],
  ['sticker', '贴纸'],
  ['emoji', '表情'],
  ['reaction', '反应'],
  ['link', 'url', '链接'],
  ['click', 'tap', 'press', '点击'],
  ['option', 'choice', '选项'],
  ['question', 'ask', '提问'],
  ['wait', '等待'],
  ['draft', '草稿'],
  ['stream', 'streaming', '流式'],
  ['game', '游戏'],
  ['location', '位置'],
  ['contact', '联系人'],
  ['payment', 'pay', '支付', '付款'],
  ['notification', 'notify', '通知'],
  ['broadcast', '群发', '广播'],
  ['privacy', '隐私'],
  ['people', 'ppl', '人们'],
  // Building and running a bot.
  ['error', '错误', '报错'],
  ['crash', '崩溃'],
  ['log', 'logging', '日志'],
  ['debug', '调试'],
  ['deploy', 'deployment', '部署'],
  ['hosting', 'host', '托管'],
  ['server', '服务器'],
  ['vps', 'virtual server', '虚拟服务器'],
  ['database', 'db', '数据库'],
  ['storage', 'store', 'save', '存储', '保存'],
  ['session', '会话'],
  ['conversation', 'dialog', '对话'],
  ['long polling', '长轮询'],
  ['update', '更新'],
  ['event', '事件'],
  ['handler', '处理函数', '处理器'],
  ['middleware', '中间件'],
  ['plugin', 'extension', '插件'],
  ['filter', '过滤', '筛选'],
  ['rate limit', 'throttle', '限流', '限速'],
  ['spam', 'flood', '刷屏'],
  ['retry', '重试'],
  ['timeout', '超时'],
  ['proxy', '代理'],
  ['translate', 'translation', 'i18n', 'internationalization', 'localization', '翻译', '多语言', '国际化'],
  ['language', '语言'],
  ['format', 'formatting', '格式'],
  ['bold', '粗体', '加粗'],
  ['italic', '斜体'],
  ['inline', '内联'],
  ['query', '查询'],
  ['search', '搜索'],
  ['schedule', 'cron', '定时'],
  ['permission', '权限'],
  ['token', '令牌'],
  ['api', '接口'],
  ['install', 'setup', '安装'],
  ['configuration', 'config', 'settings', '配置', '设置'],
  ['environment variable', 'env', '环境变量'],
  ['stop', '停止'],
  ['restart', 'reboot', '重启'],
  ['skip', 'ignore', '跳过', '忽略'],
  ['cancel', 'abort', '取消'],
  ['free', '免费'],
  ['price', 'cost', '价格', '费用'],
  ['example', 'sample', '示例', '例子'],
  ['test', 'testing', '测试'],
  ['performance', '性能'],
  ['concurrency', 'concurrent', 'parallel', '并发', '并行'],
  ['production', 'prod', '生产环境', '上线'],
  ['development', 'dev', '开发'],
  ['documentation', 'docs', '文档'],
  ['authentication', 'auth', 'login', '认证', '登录'],
  ['repository', 'repo', '仓库'],
  ['typescript', 'ts'],
  ['javascript', 'js'],
];

/** Groups from the text of the synonyms page: each list item ("- a, b, c") is a group; other lines are notes. */
export function parseSynonyms(text: string): string[][] {
  const groups: string[][] = [];
  for (const raw of text.split('\n')) {
    const item = /^\s*[-*+]\s+(.*)$/.exec(raw);
    if (!item) continue;
    const members = [
      ...new Set(
        item[1]!
          .split(/[,，、]/)
          .map((m) => m.trim().toLowerCase())
          .filter(Boolean),
      ),
    ];
    if (members.length >= 2) groups.push(members);
  }
  return groups;
}

const SYNONYMS_TITLE = 'Search synonyms';

/** The synonyms page for `groups`. */
export function synonymsPage(groups: string[][]): { slug: string; title: string; summary: string; content: string } {
  return {
    slug: SYNONYMS_SLUG,
    title: SYNONYMS_TITLE,
    summary: 'Words that mean the same in questions; search looks for all of them. Never shown as an answer.',
    content: [
      `# ${SYNONYMS_TITLE}`,
      '',
      'Each list item is a group of words or phrases (English or Chinese) that mean the same in questions.',
      'Change it with `parley knowledge synonyms add` and `rm`, or edit this page.',
      '',
      ...groups.map((group) => `- ${group.join(', ')}`),
    ].join('\n'),
  };
}

/** `groups` with `words` as one group, merged into the groups that share a word with it. */
export function addSynonyms(groups: string[][], words: string[]): string[][] {
  const merged = new Set<string>();
  const kept: string[][] = [];
  for (const group of groups) {
    if (group.some((word) => words.includes(word))) for (const word of group) merged.add(word);
    else kept.push(group);
  }
  for (const word of words) merged.add(word);
  return [...kept, [...merged]];
}

/** `groups` without `word` (a group left with one word goes too). */
export function removeSynonym(groups: string[][], word: string): string[][] {
  return groups.map((group) => group.filter((w) => w !== word)).filter((group) => group.length >= 2);
}

interface Member {
  group: number;
  terms: string[];
  cjk: boolean;
}

/** Finds the groups a query's terms contain and the terms of their other members. */
export class SynonymTable {
  readonly #groups: Member[][] = [];
  /** First term of a member → members starting with it. */
  readonly #byTerm = new Map<string, Member[]>();

  constructor(groups: readonly (readonly string[])[], tokenize: Tokenize) {
    for (const group of groups) {
      const members = group
        .map((phrase) => ({ group: this.#groups.length, terms: [...new Set(tokenize(phrase))], cjk: CJK.test(phrase) }))
        .filter((m) => m.terms.length > 0);
      if (members.length < 2) continue;
      this.#groups.push(members);
      for (const member of members) {
        const list = this.#byTerm.get(member.terms[0]!) ?? [];
        list.push(member);
        this.#byTerm.set(member.terms[0]!, list);
      }
    }
  }

  get size(): number {
    return this.#groups.length;
  }

  /**
   * For query terms (with weights): the terms to add, each with the weight of the best member it
   * stands in for times SYNONYM_WEIGHT (CROSS_SCRIPT_WEIGHT when the script differs), and which
   * query term brought them in.
   */
  expand(query: Map<string, number>): Map<string, { weight: number; from: string }> {
    const added = new Map<string, { weight: number; from: string }>();
    const seen = new Set<number>();
    for (const [term] of query) {
      for (const member of this.#byTerm.get(term) ?? []) {
        if (!member.terms.every((t) => query.has(t))) continue;
        const matched = Math.max(...member.terms.map((t) => query.get(t)!));
        const key = member.group * 1_000_000 + Math.round(matched * 1000);
        if (seen.has(key)) continue;
        seen.add(key);
        const from = member.terms.join(' ');
        for (const other of this.#groups[member.group]!) {
          if (other === member) continue;
          const weight = matched * (other.cjk === member.cjk ? SYNONYM_WEIGHT : CROSS_SCRIPT_WEIGHT);
          for (const t of other.terms) {
            if ((query.get(t) ?? 0) >= weight) continue;
            if ((added.get(t)?.weight ?? 0) < weight) added.set(t, { weight, from });
          }
        }
      }
    }
    return added;
  }
}
