// Languages on Telegram: the app language a user's client reports (from.language_code) decides the
// bot's own words; the command menu is registered per language. The fake's users carry the
// language_code Telegram sends (an IETF tag: "zh-hans", "en").
import { afterEach, describe, expect, it } from 'vitest';
import { botMessages, closeTelegram, startTelegram } from './helpers.ts';

afterEach(closeTelegram);

describe('telegram: languages', () => {
  it('a user whose app is in Chinese gets /help in Chinese, an English one in English', async () => {
    const { tg } = await startTelegram();
    const wang = tg.user('王', { languageCode: 'zh-hans' });
    const alice = tg.user('Alice', { languageCode: 'en' });
    const wangChat = tg.privateChat(wang);
    const aliceChat = tg.privateChat(alice);

    tg.say(wang, wangChat, '/help');
    const [chinese] = await botMessages(tg, wangChat);
    expect(chinese!.message.text).toMatch(/^我是 Parley。直接给我发消息就行。/);
    expect(chinese!.message.text).toContain('/approve <code>：按代码批准一个待审批的工具调用');

    tg.say(alice, aliceChat, '/help');
    const [english] = await botMessages(tg, aliceChat);
    expect(english!.message.text).toMatch(/^I am Parley\. Just write to me\./);
    expect(english!.message.text).toContain('/approve <code>: Approve a pending tool call by its code');
  });

  it('registers the command menu in English for everyone and in Chinese for Chinese apps', async () => {
    const { tg } = await startTelegram();
    expect([...tg.menus.keys()].sort()).toEqual(['', 'zh']);
    expect(tg.menus.get('')!.find((c) => c.command === 'help')!.description).toBe('What I can do and how to talk to me');
    expect(tg.menus.get('zh')!.find((c) => c.command === 'help')!.description).toBe('我能做什么，以及怎么和我对话');
    expect(tg.menus.get('zh')!.map((c) => c.command)).toEqual(tg.menus.get('')!.map((c) => c.command));
  });
});
