// Topics (threads) in a group: a topic is its own conversation, named by its root message, and
// everything the bot says there (the answer, an approval card, the answer after the click) stays
// in the topic.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, deployTool, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

describe('feishu: topics', () => {
  it('answers inside the topic, approval card and all, in a session of its own', { timeout: 40_000 }, async () => {
    const deployed: string[] = [];
    const { fs, h } = await startFeishu('webhook', { tools: [deployTool(deployed)] });
    const alice = fs.user('Alice');
    const group = fs.group();
    h.model.enqueue(
      { text: 'Main chat answer.' },
      { text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] },
      { text: 'Deployed, in the topic.' },
    );

    await fs.push(fs.messageEvent(alice, group, 'hello', { mention: [fs.bot] }).event);
    await waitFor(() => fs.botMessages(group).some((m) => text(m) === 'Main chat answer.'), 'the main chat answer');
    await settled(h.store, `feishu:${group.id}`);

    const root = fs.messageEvent(alice, group, 'Release plan for today');
    await fs.push(root.event);
    const inTopic = fs.messageEvent(alice, group, 'deploy the api', { mention: [fs.bot], inTopicOf: root.messageId });
    await fs.push(inTopic.event);
    const topicId = fs.messages.get(inTopic.messageId)!.threadId!;
    const card = await waitFor(() => fs.botMessages(group).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the approval card');
    expect(card.threadId).toBe(topicId);

    const click = await fs.push(fs.clickEvent(alice, card.id, 'Approve'));
    expect(click.body?.toast?.content).toBe('Approved.');
    await waitFor(() => fs.botMessages(group).some((m) => text(m) === 'Deployed, in the topic.'), 'the answer after the click', 20_000);
    await settled(h.store, `feishu:${group.id}:${root.messageId}`, 20_000);
    expect(deployed).toEqual(['api']);

    const [main, ...topic] = fs.botMessages(group);
    expect(text(main!)).toBe('Main chat answer.');
    expect(main!.threadId).toBeUndefined();
    expect(topic.length).toBeGreaterThanOrEqual(2);
    for (const message of topic) expect(message.threadId).toBe(topicId);
    expect(await h.store.sessions.getByKey(`feishu:${group.id}:${root.messageId}`)).toBeTruthy();
  });
});
