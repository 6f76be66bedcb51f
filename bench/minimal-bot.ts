// The yardstick of `npm run bench -- hotpath`: a grammY + openai bot that stores nothing. Each text
// message gets one streamed completion (more rounds only when the model asks for tools, each tool
// answered "ok"), and the final text is sent once. Updates are handled concurrently, as a bot with
// many chats would (grammY's runner does the same); nothing is kept between messages.
// Env: TELEGRAM_BOT_TOKEN, TELEGRAM_API_ROOT, OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY.
import { Bot } from 'grammy';
import OpenAI from 'openai';
import { z } from 'zod';

const env = z
  .object({
    TELEGRAM_BOT_TOKEN: z.string().min(1),
    TELEGRAM_API_ROOT: z.url(),
    OPENAI_BASE_URL: z.url(),
    OPENAI_MODEL: z.string().min(1),
    OPENAI_API_KEY: z.string().default('none'),
  })
  .parse(process.env);

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolCall = { id: string; name: string; arguments: string };

const openai = new OpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY, maxRetries: 0 });
const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'search_knowledge',
      description: 'Search',
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    },
  },
];

async function complete(messages: ChatMessage[]): Promise<{ text: string; calls: ToolCall[] }> {
  const stream = await openai.chat.completions.create({ model: env.OPENAI_MODEL, messages, tools, stream: true });
  let text = '';
  const calls: ToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (delta?.content) text += delta.content;
    for (const call of delta?.tool_calls ?? []) {
      calls[call.index] ??= { id: '', name: '', arguments: '' };
      const slot = calls[call.index]!;
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name += call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
  }
  return { text, calls };
}

async function answer(question: string): Promise<string> {
  const messages: ChatMessage[] = [{ role: 'user', content: question }];
  for (let round = 0; round < 10; round++) {
    const { text, calls } = await complete(messages);
    if (!calls.length) return text;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
  }
  return '(too many rounds)';
}

const bot = new Bot(env.TELEGRAM_BOT_TOKEN, { client: { apiRoot: env.TELEGRAM_API_ROOT } });
bot.on('message:text', (ctx) => {
  // Not awaited: the next update is taken at once, so chats do not wait for each other.
  void answer(ctx.message.text)
    .then((text) => ctx.reply(text || '(empty)'))
    .catch((error: unknown) => console.error('minimal bot: could not answer', error));
});
bot.catch((error) => console.error('minimal bot:', error.error));
process.once('SIGTERM', () => void bot.stop().then(() => process.exit(0)));
await bot.start({ onStart: () => console.log('minimal bot ready') });
