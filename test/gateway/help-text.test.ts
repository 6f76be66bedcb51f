// /help names the bot. The name comes from configuration and goes into the chat as text: whatever
// characters it has, they show as themselves, never as a link or formatting.
import MarkdownIt from 'markdown-it';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, createHarness, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const NAME = '*Helper* [bot](https://evil.example/b)';

describe('/help', () => {
  it('shows a bot name with Markdown characters as text', async () => {
    const h = await createHarness({ noModel: true, env: { PARLEY_BOT_NAME: NAME } });
    await h.adapter.say('/help', { chatType: 'group' });
    const reply = await waitFor(() => h.adapter.lastBotMessage('group-1')?.text, 'the help text');
    const [first] = new MarkdownIt('commonmark', { html: false }).parse(reply, {}).filter((token) => token.type === 'inline');
    expect(first!.children!.map((token) => token.type).filter((type) => type !== 'text' && type !== 'text_special')).toEqual([]);
    expect(first!.children!.map((token) => token.content).join('')).toBe(
      `I am ${NAME}. In a group I only see messages addressed to me: mention me (@${NAME}), reply to one of my messages, or use a command.`,
    );
  });
});
