// Real Feishu events carry explicit nulls (and sometimes "") wherever a field does not apply or the
// app may not see it. Property: take a real-shaped event (a p2p message, a group @mention, a card
// click), replace any subset of its optional fields by null, "" or nothing, hand it to the adapter
// through the real SDK's EventDispatcher, and it still reaches the core with the right person, chat,
// text and mention. What Parley truly needs missing: the event is dropped with one warning naming
// the field, however often it is pushed.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, Inbound } from '../../src/core/types.ts';
import type { FeishuAdapter } from '../../adapters/feishu/adapter.ts';
import type { FakeFeishu, FeishuChat } from '../fakes/feishu/index.ts';
import type { RecordingLogger } from '../telegram/helpers.ts';
import { closeFeishu, startBare } from './helpers.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Change = 'keep' | 'null' | 'absent' | 'empty';
interface Field {
  path: string[];
  changes: Change[];
}

/** Every field of `event` but the required ones (and their ancestors): what may be null, "" or absent. */
function optionalFields(event: Json, required: readonly string[]): Field[] {
  const fields: Field[] = [];
  const keep = new Set(required.flatMap((path) => path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
  const walk = (value: Json, path: string[]) => {
    if (path.length > 0 && !keep.has(path.join('.')))
      fields.push({ path, changes: typeof value === 'string' || value === null ? ['null', 'absent', 'empty'] : ['null', 'absent'] });
    if (typeof value === 'object' && value !== null) for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
  };
  walk(event, []);
  return fields;
}

type Plan = Record<string, Change>;

/** `event` with each field changed as planned (a field under one made null or absent is gone with it). */
function changed(event: Json, fields: readonly Field[], plan: Plan): Json {
  const copy = structuredClone(event);
  for (const { path } of fields) {
    const change = plan[path.join('.')] ?? 'keep';
    if (change === 'keep') continue;
    let parent: Json = copy;
    for (const key of path.slice(0, -1))
      parent = typeof parent === 'object' && parent !== null ? ((parent as Record<string, Json>)[key] ?? null) : null;
    if (typeof parent !== 'object' || parent === null) continue;
    const record = parent as Record<string, Json>;
    const key = path.at(-1)!;
    if (!(key in record)) continue;
    if (change === 'absent') delete record[key];
    else record[key] = change === 'null' ? null : '';
  }
  return copy;
}

/** Which fields to change and how, by path (fast-check shrinks towards keeping them). */
function planFor(fields: readonly Field[]): fc.Arbitrary<Plan> {
  return fc.record(Object.fromEntries(fields.map((field) => [field.path.join('.'), fc.constantFrom<Change>('keep', ...field.changes)])));
}

const RUNS = 60;
const MESSAGE_REQUIRED = [
  'schema',
  'header.event_type',
  'header.event_id',
  'event.sender.sender_id.open_id',
  'event.message.message_id',
  'event.message.chat_id',
  'event.message.chat_type',
  'event.message.message_type',
  'event.message.content',
];

describe('feishu: events with null, empty and missing optional fields', () => {
  const inbound: Inbound[] = [];
  const actions: Action[] = [];
  let fs: FakeFeishu;
  let adapter: FeishuAdapter;
  let log: RecordingLogger;
  let group: FeishuChat;
  let cardId: string;

  beforeAll(async () => {
    ({ fs, adapter, log } = await startBare({
      onMessage: async (message) => void inbound.push(message),
      async onAction(action) {
        actions.push(action);
        await action.reply.ack('Noted.');
      },
    }));
    group = fs.group();
    const card = await adapter.send(
      { channel: 'feishu', chatId: group.id, chatType: 'group' },
      { text: 'Approve?', buttons: [[{ label: 'Approve', payload: 'tok-nulls' }]] },
    );
    cardId = card.messageId;
  });
  afterAll(closeFeishu);

  /** What the core received for one event, through the SDK's dispatcher (as both transports deliver). */
  async function deliver(event: unknown): Promise<{ inbound: Inbound[]; actions: Action[]; answer: unknown }> {
    inbound.length = 0;
    actions.length = 0;
    const answer = await adapter.dispatcher.invoke(event, { needCheck: false });
    return { inbound: [...inbound], actions: [...actions], answer };
  }

  it('a p2p message (no user_id, mentions: null) reaches the core whatever optional field is null, "" or missing', async () => {
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    const sample = fs.messageEvent(alice, dm, 'hello there').event;
    expect(sample.event.sender.sender_id.user_id).toBeNull();
    expect(sample.event.message.mentions).toBeNull();
    const fields = optionalFields(sample as unknown as Json, MESSAGE_REQUIRED);
    expect(fields.map((f) => f.path.join('.'))).toEqual(expect.arrayContaining(['event.sender.sender_type', 'event.message.root_id']));
    await fc.assert(
      fc.asyncProperty(planFor(fields), async (plan) => {
        const { messageId, event } = fs.messageEvent(alice, dm, 'hello there');
        const got = await deliver(changed(event as unknown as Json, fields, plan));
        expect(got.inbound).toHaveLength(1);
        expect(got.inbound[0]).toMatchObject({
          chatId: dm.id,
          chatType: 'direct',
          messageId,
          sender: { id: alice.openId, isBot: false },
          text: 'hello there',
          mentionsBot: false,
        });
        expect(got.inbound[0]!.threadId).toBeUndefined();
        expect(got.inbound[0]!.replyToMessageId).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('a group @mention (mention id.user_id: null) is addressed to the bot whatever optional field is null, "" or missing', async () => {
    const alice = fs.user('Alice');
    const sample = fs.messageEvent(alice, group, 'status please', { mention: [fs.bot] }).event;
    expect(sample.event.message.mentions?.[0]?.id.user_id).toBeNull();
    const mentionRequired = ['key', 'id.open_id'].map((field) => `event.message.mentions.0.${field}`);
    const fields = optionalFields(sample as unknown as Json, [...MESSAGE_REQUIRED, ...mentionRequired]);
    await fc.assert(
      fc.asyncProperty(planFor(fields), async (plan) => {
        const { messageId, event } = fs.messageEvent(alice, group, 'status please', { mention: [fs.bot] });
        const got = await deliver(changed(event as unknown as Json, fields, plan));
        expect(got.inbound).toHaveLength(1);
        expect(got.inbound[0]).toMatchObject({
          chatId: group.id,
          chatType: 'group',
          messageId,
          sender: { id: alice.openId },
          text: 'status please',
          mentionsBot: true,
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('a card click (operator user_id: null) reaches the core and is answered whatever optional field is null, "" or missing', async () => {
    const alice = fs.user('Alice');
    const sample = fs.clickEvent(alice, cardId, 'Approve');
    expect(sample.event.operator.user_id).toBeNull();
    const required = [
      'schema',
      'header.event_type',
      'event.operator.open_id',
      'event.action.value.p',
      'event.context.open_message_id',
      'event.context.open_chat_id',
    ];
    const fields = optionalFields(sample as unknown as Json, required);
    await fc.assert(
      fc.asyncProperty(planFor(fields), async (plan) => {
        const got = await deliver(changed(fs.clickEvent(alice, cardId, 'Approve') as unknown as Json, fields, plan));
        expect(got.actions).toHaveLength(1);
        expect(got.actions[0]).toMatchObject({
          chatId: group.id,
          chatType: 'group',
          messageId: cardId,
          userId: alice.openId,
          payload: 'tok-nulls',
        });
        expect(got.answer).toEqual({ toast: { type: 'info', content: 'Noted.' } });
      }),
      { numRuns: RUNS },
    );
  });

  it('drops an event without what Parley needs, with one warning naming the field however often it comes', async () => {
    const alice = fs.user('Alice');
    const warnings = (field: string) => log.lines.filter((line) => line.level === 'warn' && line.msg?.includes(field));

    const { event } = fs.messageEvent(alice, fs.p2p(), 'no chat');
    const message = { ...event, event: { ...event.event, message: { ...event.event.message, chat_id: null } } };
    await deliver(message);
    await deliver(message);
    // Feishu pushes a message again under a new event id.
    const got = await deliver({ ...message, header: { ...message.header, event_id: crypto.randomUUID() } });
    expect(got.inbound).toEqual([]);
    expect(warnings('message.chat_id')).toHaveLength(1);

    const click = fs.clickEvent(alice, cardId, 'Approve');
    const noOperator = { ...click, event: { ...click.event, operator: { ...click.event.operator, open_id: null } } };
    const first = await deliver(noOperator);
    const second = await deliver(noOperator);
    expect(first.actions).toEqual([]);
    expect(second.answer).toEqual({ toast: { type: 'info', content: 'This button is no longer active.' } });
    expect(warnings('operator.open_id')).toHaveLength(1);
  });
});
