// fast-check arbitraries for Telegram updates: real shapes (message, edited_message, callback_query,
// channel_post, my_chat_member; private chats, groups, forum topics, replies, entities) and
// mutations of them — fields removed, added or given the wrong type, huge strings, odd unicode,
// entities pointing outside the text, numbers outside any sane range.
import fc from 'fast-check';

export const BOT_ID = 7_000_001;
export const BOT_USERNAME = 'parley_test_bot';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  // Lone surrogates, NUL and other control characters.
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `@${BOT_USERNAME} hi`,
      `/help@${BOT_USERNAME}`,
      '/reset',
      '/stop@other_bot',
      '\u202e\u0000\ud800',
      '👩‍👩‍👧‍👦'.repeat(50),
    ),
  },
);
/** Message text: sometimes far beyond Telegram's 4096 characters. */
const messageText = fc.oneof(
  { weight: 30, arbitrary: text },
  { weight: 1, arbitrary: fc.integer({ min: 4_000, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

const id = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 2 ** 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(BOT_ID, 0, -1, 2 ** 53 + 2, 1.5, 1e308) },
);
const user = fc.record(
  {
    id,
    is_bot: fc.oneof(fc.constant(false), fc.boolean()),
    first_name: text,
    last_name: text,
    username: fc.oneof(fc.constant(BOT_USERNAME), fc.string({ maxLength: 32 })),
    language_code: fc.constantFrom('en', 'zh-hans', ''),
  },
  { requiredKeys: ['id', 'is_bot', 'first_name'] },
);
const chat = fc.oneof(
  user.map((u) => ({ id: u.id, type: 'private', first_name: u.first_name })),
  fc.record({ id: fc.integer({ min: -(2 ** 45), max: -1 }), type: fc.constantFrom('group', 'supergroup'), title: text }),
  fc.record({ id: fc.integer({ min: -(2 ** 45), max: -1 }), type: fc.constant('supergroup'), title: text, is_forum: fc.constant(true) }),
  fc.record({ id: fc.integer({ min: -(2 ** 45), max: -1 }), type: fc.constant('channel'), title: text }),
);
const entity = fc.record(
  {
    type: fc.constantFrom('mention', 'text_mention', 'bot_command', 'bold', 'url', 'custom_emoji', 'unknown_kind'),
    offset: fc.oneof(fc.nat({ max: 60 }), fc.integer({ min: -5, max: 2 ** 53 })),
    length: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: -5, max: 2 ** 53 })),
    user,
  },
  { requiredKeys: ['type', 'offset', 'length'] },
);
const date = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 53 - 1, 8.64e12, 1e15) },
);

const message = fc.record(
  {
    message_id: fc.oneof(fc.integer({ min: 1, max: 2 ** 31 }), id),
    from: user,
    sender_chat: chat,
    chat,
    date,
    message_thread_id: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 10_000 })),
    is_topic_message: fc.boolean(),
    text: messageText,
    entities: fc.array(entity, { maxLength: 6 }),
    reply_to_message: fc.record(
      {
        message_id: fc.integer({ min: 1, max: 2 ** 31 }),
        from: user,
        chat,
        date,
        forum_topic_created: fc.constant({ name: 'Ops', icon_color: 1 }),
      },
      { requiredKeys: ['message_id', 'chat', 'date'] },
    ),
    new_chat_members: fc.array(user, { maxLength: 2 }),
    photo: fc.constant([{ file_id: 'f', file_unique_id: 'u', width: 1, height: 1 }]),
  },
  { requiredKeys: ['message_id', 'chat', 'date'] },
);
const callbackQuery = fc.record(
  {
    id: fc.oneof({ weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) }, { weight: 1, arbitrary: fc.constant('') }),
    from: user,
    chat_instance: fc.string({ maxLength: 12 }),
    // An inaccessible message (older than 48 h) comes as { chat, message_id, date: 0 }.
    message: fc.oneof(
      message,
      chat.map((c) => ({ chat: c, message_id: 5, date: 0 })),
    ),
    data: fc.oneof(fc.string({ maxLength: 64 }), fc.constantFrom('ap:tok:a', 'x'.repeat(5_000))),
    inline_message_id: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['id', 'from', 'chat_instance'] },
);
const chatMember = fc.record({
  chat,
  from: user,
  date,
  old_chat_member: fc.record({ status: fc.constantFrom('left', 'member'), user }),
  new_chat_member: fc.record({ status: fc.constantFrom('member', 'administrator', 'kicked'), user }),
});

/** A well-formed update of one of the kinds Telegram sends (update_id filled in later). */
const realUpdate: fc.Arbitrary<Record<string, Json>> = fc.oneof(
  { weight: 4, arbitrary: message.map((m) => ({ message: m })) },
  { weight: 1, arbitrary: message.map((m) => ({ edited_message: m })) },
  { weight: 3, arbitrary: callbackQuery.map((q) => ({ callback_query: q })) },
  { weight: 1, arbitrary: message.map((m) => ({ channel_post: m })) },
  { weight: 1, arbitrary: chatMember.map((m) => ({ my_chat_member: m })) },
) as fc.Arbitrary<Record<string, Json>>;

const junk: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, -1e308, '', '0', [], {}) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 50_000 }).map((n) => '\u{1F600}'.repeat(n)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

function paths(value: Json, prefix: string[] = [], out: string[][] = []): string[][] {
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = [...prefix, key];
      out.push(path);
      paths(child, path, out);
    }
  }
  return out;
}

type Mutation = { kind: 'delete' | 'replace' | 'add'; at: number; value: Json; key: string };

function mutate(update: Record<string, Json>, mutations: Mutation[]): Record<string, Json> {
  const copy = structuredClone(update);
  for (const { kind, at, value, key } of mutations) {
    const all = paths(copy);
    if (all.length === 0) continue;
    const path = all[at % all.length]!;
    const parent = path.slice(0, -1).reduce<Json>((node, k) => (node as Record<string, Json>)[k]!, copy) as Record<string, Json>;
    const last = path.at(-1)!;
    if (kind === 'delete') delete parent[last];
    else if (kind === 'replace') parent[last] = value;
    else {
      const target = parent[last];
      const into = target && typeof target === 'object' && !Array.isArray(target) ? target : parent;
      // An own "__proto__" key, as JSON.parse makes it (plain assignment would set the prototype).
      Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'replace', 'add'),
  at: fc.nat(),
  value: junk,
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'text', 'entities', 'from', 'chat', 'id'), fc.string({ maxLength: 8 })),
});

/** A real update with one to four mutations. */
const mutatedUpdate: fc.Arbitrary<Record<string, Json>> = fc
  .tuple(realUpdate, fc.array(mutation, { minLength: 1, maxLength: 4 }))
  .map(([u, m]) => mutate(u, m));

/** A real update, often mutated. */
export const anyUpdate: fc.Arbitrary<Record<string, Json>> = fc.oneof(
  { weight: 2, arbitrary: realUpdate },
  { weight: 3, arbitrary: mutatedUpdate },
);
