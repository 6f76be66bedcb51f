// Conversations through the real Lark SDK against the fake open platform, in both delivery modes.
import { afterEach, describe, expect, it } from 'vitest';
import { settled, waitFor } from '../helpers/harness.ts';
import { botMessages, closeFeishu, startFeishu, text, type Mode } from './helpers.ts';

afterEach(closeFeishu);

describe.each<Mode>(['webhook', 'ws'])('feishu (%s): conversations', (mode) => {
  it('answers a p2p message with a streamed card that ends with the whole answer, as a reply', async () => {
    const { fs, h } = await startFeishu(mode);
    const answer = 'Hello **there**! This answer is streamed into one card that is updated as the text arrives, until it is complete.';
    h.model.enqueue({ text: answer, chunkSize: 8, delayMs: 20 });
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    const { messageId, event } = fs.messageEvent(alice, dm, 'hi bot');
    // As an app without the "obtain user ID" scope receives it.
    expect(event.event.sender.sender_id.user_id).toBeNull();
    expect(event.event.message.mentions).toBeNull();
    const delivery = await fs.push(event);
    expect(delivery.status).toBe(200);
    const [reply] = await botMessages(fs, dm);
    await waitFor(() => text(reply!) === answer, 'the complete answer');
    // Feishu shows answers as replies in p2p chats too (capabilities.repliesInDirect).
    expect(reply!.parentId).toBe(messageId);
    expect(reply!.versions.length).toBeGreaterThanOrEqual(1);
    await settled(h.store, `feishu:${dm.id}`);
    expect(fs.botMessages(dm)).toHaveLength(1);
  });

  it('ignores an unaddressed group message; answers a mention and a reply to the bot, as replies', async () => {
    const { fs, h } = await startFeishu(mode);
    const alice = fs.user('Alice');
    const bob = fs.user('Bob');
    const group = fs.group();
    h.model.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });

    await fs.push(fs.messageEvent(alice, group, 'just chatting with Bob', { mention: [bob] }).event);
    const mention = fs.messageEvent(alice, group, 'what is up? ask @_user_2', { mention: [fs.bot, bob] });
    expect(mention.event.event.message.mentions?.map((m) => m.id.user_id)).toEqual([null, null]);
    await fs.push(mention.event);
    const [first] = await botMessages(fs, group);
    await waitFor(() => text(first!) === 'First answer.', 'the first answer');
    expect(first!.parentId).toBe(mention.messageId);
    // The bot's mention is removed, other placeholders become names.
    expect(h.model.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(JSON.stringify(h.model.requests[0]!.body.messages.at(-1))).toContain('what is up? ask @Bob');
    await settled(h.store, `feishu:${group.id}`);

    const reply = fs.messageEvent(bob, group, 'and a follow-up, in rich text', { replyTo: first!.id, post: true });
    await fs.push(reply.event);
    const messages = await botMessages(fs, group, 2);
    await waitFor(() => text(messages[1]!) === 'Second answer.', 'the second answer');
    expect(messages[1]!.parentId).toBe(reply.messageId);
    expect(JSON.stringify(h.model.requests[1]!.body.messages.at(-1))).toContain('and a follow-up, in rich text');
    await settled(h.store, `feishu:${group.id}`);
    expect(h.model.requests).toHaveLength(2);
  });

  it('a long answer arrives complete, split into cards under 30 KB', async () => {
    const { fs, h } = await startFeishu(mode);
    const paragraph = '这是一个很长的回答。'.repeat(60);
    const answer = Array.from({ length: 30 }, (_, i) => `${i}: ${paragraph}`).join('\n\n');
    h.model.enqueue({ text: answer, chunkSize: 4000 });
    const dm = fs.p2p();
    await fs.push(fs.messageEvent(fs.user('Alice'), dm, 'write a lot').event);
    const flat = (s: string) => s.replace(/\s+/g, '');
    // The turn is recorded done before its last cards are out: wait for the text itself.
    const cards = await waitFor(
      () => {
        const sent = fs.botMessages(dm);
        return flat(sent.map(text).join('')) === flat(answer) ? sent : undefined;
      },
      'the whole answer',
      20_000,
    );
    expect(cards.length).toBeGreaterThan(1);
    for (const card of cards) expect(Buffer.byteLength(JSON.stringify(card.content))).toBeLessThan(30 * 1024);
  });

  it('answers a duplicate event_id and a re-pushed message once; /stop works', async () => {
    const { fs, h } = await startFeishu(mode);
    h.model.enqueue({ text: 'Only once.' });
    const alice = fs.user('Alice');
    const dm = fs.p2p();
    const { event } = fs.messageEvent(alice, dm, 'hello');
    await fs.push(event);
    await fs.push(event);
    // Feishu re-pushes the same message under a new event id.
    await fs.push({ ...event, header: { ...event.header, event_id: crypto.randomUUID() } });
    await waitFor(() => fs.botMessages(dm)[0] && text(fs.botMessages(dm)[0]!) === 'Only once.', 'the answer');
    await settled(h.store, `feishu:${dm.id}`);
    expect(fs.botMessages(dm)).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(fs.deliveries.every((d) => d.status === 200)).toBe(true);

    h.model.enqueue({ text: 'a very slow answer that will be stopped '.repeat(20), chunkSize: 5, delayMs: 100 });
    await fs.push(fs.messageEvent(alice, dm, 'tell me a long story').event);
    await waitFor(() => fs.botMessages(dm).length === 2, 'the second answer to start');
    await fs.push(fs.messageEvent(alice, dm, '/stop').event);
    const turns = await settled(h.store, `feishu:${dm.id}`);
    expect(turns.length).toBe(2);
    expect(h.model.requests).toHaveLength(2);
    expect(text(fs.botMessages(dm)[1]!).length).toBeLessThan(800);
  });

  it('drops an event without a chat id, with one warning naming the field, however often it is pushed', async () => {
    const { fs, h, log } = await startFeishu(mode);
    const { event } = fs.messageEvent(fs.user('Alice'), fs.p2p(), 'where am I?');
    const broken = { ...event, event: { ...event.event, message: { ...event.event.message, chat_id: null } } };
    const deliveries = [
      await fs.push(broken, { attempts: 1 }),
      await fs.push(broken, { attempts: 1 }),
      await fs.push({ ...broken, header: { ...broken.header, event_id: crypto.randomUUID() } }, { attempts: 1 }),
    ];
    // Answered, so Feishu does not push it again and again.
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    expect(log.lines.filter((line) => line.level === 'warn' && line.msg?.includes('message.chat_id'))).toHaveLength(1);
    expect(h.model.requests).toHaveLength(0);
  });
});
