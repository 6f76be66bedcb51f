// Languages on Feishu through the real Lark SDK. Feishu's events tell no language (neither the
// message event nor the card callback; the contact and tenant APIs have no locale field either), so
// the bot writes in the language the person writes in: a Chinese request gets a Chinese approval
// card (words, buttons, the click's toast, the decided card), an English one an English card.
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { FeishuAdapter } from '../../adapters/feishu/adapter.ts';
import { loadFeishuConfig } from '../../adapters/feishu/config.ts';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { silentLogger } from '../../src/log.ts';
import { FakeFeishu } from '../fakes/feishu/index.ts';
import { settled, waitFor } from '../helpers/harness.ts';
import { closeFeishu, startFeishu, text } from './helpers.ts';

afterEach(closeFeishu);

/** A gated tool whose words for the call are given per locale (what a plugin can do). */
function deployTool(deployed: string[]): AnyTool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service to production',
    parameters: z.object({ service: z.string() }),
    approval: 'always',
    describe: ({ service }) => ({ en: `deploy ${service} to production`, 'zh-CN': `把 ${service} 部署到生产环境` }),
    async execute({ service }) {
      deployed.push(service);
      return `deployed ${service}`;
    },
  }) as AnyTool;
}

describe("feishu: the language of the bot's own texts", () => {
  it('a Chinese request gets a Chinese approval card and toast; an English one stays English', async () => {
    const deployed: string[] = [];
    const { fs, h } = await startFeishu('webhook', { tools: [deployTool(deployed)] });
    const xiaoming = fs.user('小明');
    const chinese = fs.group();
    h.model.enqueue({ text: '好的，我来部署。', toolCalls: [{ name: 'deploy', arguments: { service: 'api' } }] }, { text: '已部署 api。' });
    await fs.push(fs.messageEvent(xiaoming, chinese, '请把 api 部署到生产环境', { mention: [fs.bot] }).event);
    const prompt = await waitFor(() => fs.botMessages(chinese).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the approval card');
    expect(text(prompt)).toContain('需要审批');
    // Feishu's message event names the sender by open_id only.
    expect(text(prompt)).toMatch(/ou_\w+ 请我执行：把 api 部署到生产环境。/);
    expect(text(prompt)).toMatch(/\d+ 分钟后（\d\d:\d\d UTC）过期。只有 ou_\w+ 或管理员可以决定。/);
    expect(FakeFeishu.buttonsOf(prompt).map((b) => b.text.content)).toEqual(['批准', '拒绝', '在此始终允许']);

    const click = await fs.push(fs.clickEvent(xiaoming, prompt.id, '批准'));
    expect(click.body?.toast?.content).toBe('已批准。');
    await waitFor(
      () => FakeFeishu.buttonsOf(prompt).length === 0 && /已由 .+ 于 \d\d:\d\d UTC 批准。/.test(text(prompt)),
      'the decided card',
      20_000,
    );
    expect(text(prompt)).toMatch(/工具 `deploy`，由 ou_\w+ 请求。/);
    await waitFor(() => fs.botMessages(chinese).some((m) => text(m) === '已部署 api。'), 'the answer after the tool', 20_000);
    await settled(h.store, `feishu:${chinese.id}`, 20_000);
    expect(deployed).toEqual(['api']);

    const alice = fs.user('Alice');
    const english = fs.group();
    h.model.enqueue({ text: 'I will deploy it.', toolCalls: [{ name: 'deploy', arguments: { service: 'web' } }] });
    await fs.push(fs.messageEvent(alice, english, 'deploy the web app please', { mention: [fs.bot] }).event);
    const englishPrompt = await waitFor(() => fs.botMessages(english).find((m) => FakeFeishu.buttonsOf(m).length > 0), 'the English card');
    expect(text(englishPrompt)).toMatch(/ou_\w+ asked me to deploy web to production\./);
    expect(FakeFeishu.buttonsOf(englishPrompt).map((b) => b.text.content)).toEqual(['Approve', 'Deny', 'Always allow here']);
  }, 40_000);
});

describe('feishu: the usual language of a domain', () => {
  const config = (domain: string) =>
    loadFeishuConfig({ FEISHU_APP_ID: 'cli_a1b2c3d4e5f6a7b8', FEISHU_APP_SECRET: 'secret', FEISHU_DOMAIN: domain })!;

  it('Feishu (mainland China) is usually Chinese; Lark and other hosts imply nothing', () => {
    expect(new FeishuAdapter({ config: config('feishu'), log: silentLogger }).usualLocale).toBe('zh-CN');
    expect(new FeishuAdapter({ config: config('lark'), log: silentLogger }).usualLocale).toBeUndefined();
    expect(new FeishuAdapter({ config: config('https://open.example.com'), log: silentLogger }).usualLocale).toBeUndefined();
  });
});
