// Which language the bot writes its own texts in: resolved per message (PARLEY_LOCALE, the platform's
// tag for the person, the message's script, the chat's last one), kept with the turn so that what
// the turn writes later is in the same language, also from a process that never saw the message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatLocales } from '../../src/gateway/locales.ts';
import { promptsIn, runs, transfer, transferCall, waitForStatus } from '../approvals/helpers.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { ALICE, MemoryAdapter } from '../fakes/memory-adapter.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

const chat = { channel: 'memory', chatId: 'dm-1' };

describe('ChatLocales', () => {
  it("auto: the platform tag, else the script of the message, else the chat's last, else English", () => {
    const locales = new ChatLocales('auto');
    expect(locales.forMessage({ ...chat, text: '/help' })).toBe('en');
    expect(locales.forMessage({ ...chat, text: 'hello', locale: 'zh-hans' })).toBe('zh-CN');
    expect(locales.forMessage({ ...chat, text: '你好', locale: 'en-US' })).toBe('en');
    expect(locales.forMessage({ ...chat, text: '你好', locale: 'fr' })).toBe('zh-CN');
    // A bare command says nothing: the chat's last language.
    expect(locales.forMessage({ ...chat, text: '/help' })).toBe('zh-CN');
    expect(locales.forChat(chat)).toBe('zh-CN');
    expect(locales.forChat({ channel: 'memory', chatId: 'elsewhere' })).toBe('en');
  });

  it("a press: the platform tag, else the chat's last, else unknown (the approval's turn decides)", () => {
    const locales = new ChatLocales('auto');
    expect(locales.forPress({ ...chat })).toBeUndefined();
    expect(locales.forPress({ ...chat, locale: 'zh-CN' })).toBe('zh-CN');
    locales.forMessage({ ...chat, text: '你好' });
    expect(locales.forPress({ ...chat })).toBe('zh-CN');
  });

  it("the channel's usual language (Feishu's China domain) is the last resort before English", () => {
    const locales = new ChatLocales('auto');
    expect(locales.forMessage({ ...chat, text: '/help' }, 'zh-CN')).toBe('zh-CN');
    expect(locales.forMessage({ ...chat, text: 'deploy it' }, 'zh-CN')).toBe('en');
    expect(locales.forPress({ channel: 'memory', chatId: 'new' }, 'zh-CN')).toBe('zh-CN');
  });

  it('a fixed setting wins over everything', () => {
    const locales = new ChatLocales('en');
    expect(locales.forMessage({ ...chat, text: '你好', locale: 'zh-hans' })).toBe('en');
    expect(locales.forPress({ ...chat, locale: 'zh-hans' })).toBe('en');
  });

  it('remembers a bounded number of chats, the least recently used forgotten first', () => {
    const locales = new ChatLocales('auto', 2);
    locales.forMessage({ channel: 'm', chatId: 'a', text: '你好' });
    locales.forMessage({ channel: 'm', chatId: 'b', text: '你好' });
    locales.forMessage({ channel: 'm', chatId: 'a', text: '好的' });
    locales.forMessage({ channel: 'm', chatId: 'c', text: '你好' });
    expect(locales.forChat({ channel: 'm', chatId: 'a' })).toBe('zh-CN');
    expect(locales.forChat({ channel: 'm', chatId: 'b' })).toBe('en');
  });
});

describe('the locale of a turn', () => {
  beforeEach(() => {
    runs.length = 0;
  });
  afterEach(closeAll);

  it("a Chinese turn's prompt, toast and outcome stay Chinese after a restart, though the click tells no language", async () => {
    const model = await FakeModelServer.start();
    const channel = new MemoryAdapter();
    const first = await createHarness({ tools: [transfer], model, adapters: [channel] });
    model.enqueue({ toolCalls: [transferCall(3, 'Dave')] });
    await channel.say('给 Dave 转 3 欧元');
    const [prompt] = await promptsIn(channel);
    expect(prompt!.text).toContain('🔐 **需要审批**：Alice 请我执行：send 3 EUR to Dave。');
    expect(prompt!.buttons.flat().map((b) => b.label)).toEqual(['批准', '拒绝', '在此始终允许']);
    await waitForStatus(first, 'memory:dm-u-alice', 'awaiting_approval');
    await first.stop();

    const second = await createHarness({ tools: [transfer], model, adapters: [channel], dbFile: first.dbFile });
    model.enqueue({ text: '已转账。' });
    expect(await channel.click(prompt!.id, '批准', ALICE)).toBe('已批准。');
    await settled(second.store, 'memory:dm-u-alice');
    expect(runs).toEqual(['transfer 3 Dave']);
    await waitFor(() => channel.messages.get(prompt!.id)!.buttons.length === 0, 'the decided prompt');
    expect(channel.messages.get(prompt!.id)!.text).toMatch(
      /^✅ 已由 Alice 于 \d\d:\d\d UTC 批准。\n工具 `transfer_money`，由 Alice 请求。$/,
    );
    await model.close();
  });

  it('PARLEY_LOCALE=en keeps every text English whatever the person writes', async () => {
    const channel = new MemoryAdapter();
    await createHarness({ adapters: [channel], env: { PARLEY_LOCALE: 'en' } });
    await channel.say('/help', { locale: 'zh-hans' });
    await waitFor(() => channel.lastBotMessage(), 'the help text');
    expect(channel.lastBotMessage()!.text).toMatch(/^I am Parley\. Just write to me\./);
  });
});
