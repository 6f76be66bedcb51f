// A scripted 10-turn group conversation on the real core (temporary SQLite, the fake model): two
// people, remembered facts, knowledge pages that the automatic context puts into some turns, and
// turns with a tool round. It measures how much of each model request begins exactly as the
// request before it did: a provider's prompt cache (OpenAI, DeepSeek, Gemini, Anthropic-compatible
// servers) serves only an exact prefix. The system prompt's base is a template using every
// variable (and a conditional). Used by the test that holds the prefix and by the bench.
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import { FakeModelServer, type RecordedRequest } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled } from './harness.ts';

const GROUP = 'memory:group-1';

const PAGES = [
  {
    slug: 'shop/refunds',
    title: 'Refunds',
    summary: 'How refunds for orders work.',
    content:
      '## Refunds\n\nRefunds for an order are paid back within five working days. A damaged parcel is refunded in full once reported with a photo.',
  },
  {
    slug: 'shop/shipping',
    title: 'Shipping',
    summary: 'Shipping times and countries.',
    content:
      '## Shipping\n\nShipping takes two to four days inside the EU. Shipping to Norway and Switzerland takes up to eight days and needs a customs form.',
  },
  {
    slug: 'shop/payment',
    title: 'Payment',
    summary: 'Ways to pay.',
    content: '## Payment\n\nYou can pay by card, by bank transfer, or by invoice for business customers with an account.',
  },
];

const SCRIPT: { from: 'Alice' | 'Bob'; text: string }[] = [
  { from: 'Alice', text: 'How do refunds work here?' },
  { from: 'Bob', text: 'What is the weather in Berlin today?' },
  { from: 'Alice', text: 'Thanks! And how long does shipping take?' },
  { from: 'Bob', text: 'Can I pay by invoice?' },
  { from: 'Alice', text: 'What did I ask first?' },
  { from: 'Bob', text: 'And the weather in Paris?' },
  { from: 'Alice', text: 'Is a refund for a damaged parcel possible?' },
  { from: 'Bob', text: 'ok cool' },
  { from: 'Alice', text: 'What about shipping to Norway?' },
  { from: 'Bob', text: 'thanks all' },
];

/** A prompt template with every variable Parley provides. */
const TEMPLATE = [
  'You are {{ botName }}, the support assistant of ACME, on {{ channel }}.',
  '{% if chatType == "group" %}This is the group "{{ chatTitle }}".{% else %}This is a direct chat.{% endif %}',
  "Write in the language of the user (the bot's own locale is {{ locale }}). Today is {{ date }}.",
].join('\n');

const weather = defineTool({
  name: 'weather',
  description: 'The weather in a city today',
  parameters: z.object({ city: z.string() }),
  approval: 'never',
  async execute({ city }) {
    return `${city}: 14 °C, light rain`;
  },
}) as AnyTool;

interface PrefixShare {
  /** Index of the request (1 = the second one). */
  request: number;
  /** Leading messages the same as the previous request's, over the previous request's message count. */
  messages: number;
  /** Leading bytes of the messages' JSON the same as the previous request's, over its length. */
  bytes: number;
}

export interface PrefixRun {
  requests: RecordedRequest[];
  shares: PrefixShare[];
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/** How much of each request (after the first) begins as the one before it. */
function prefixShares(requests: readonly RecordedRequest[]): PrefixShare[] {
  return requests.slice(1).map((request, i) => {
    const before = requests[i]!.body.messages.map((m) => JSON.stringify(m));
    const now = request.body.messages.map((m) => JSON.stringify(m));
    let same = 0;
    while (same < before.length && same < now.length && before[same] === now[same]) same++;
    const beforeJson = `[${before.join(',')}]`;
    // The earlier list's closing bracket is where a longer list goes on: not counted.
    const bytes = commonPrefix(beforeJson.slice(0, -1), `[${now.join(',')}]`) / (beforeJson.length - 1);
    return { request: i + 1, messages: same / before.length, bytes };
  });
}

export async function runPrefixConversation(): Promise<PrefixRun> {
  const model = await FakeModelServer.start();
  let answers = 0;
  model.setFallback((request) => {
    const last = request.body.messages.at(-1)!;
    if (last.role === 'user' && /weather in (\w+)/.test(last.content ?? '')) {
      const city = /weather in (\w+)/.exec(last.content ?? '')![1]!;
      return { toolCalls: [{ name: 'weather', arguments: { city } }] };
    }
    return { text: `Answer ${++answers}.` };
  });
  try {
    const h = await createHarness({ model, tools: [weather], env: { PARLEY_KNOWLEDGE_MIN_SCORE: '1', PARLEY_SYSTEM_PROMPT: TEMPLATE } });
    for (const page of PAGES) await h.app.knowledge.save({ ...page, tags: [], references: [] }, { source: 'cli' });
    const session = await h.store.sessions.ensure({ key: GROUP, channel: 'memory', chatId: 'group-1', chatType: 'group' });
    await h.store.memory.set(session.id, 'team', 'The ACME support team; answer in English.');
    await h.store.memory.set(session.id, 'alice_role', 'Alice runs the shop.');
    for (const line of SCRIPT) {
      await h.adapter.say(line.text, {
        chatType: 'group',
        chatTitle: 'ACME support',
        mention: true,
        from: { id: `u-${line.from.toLowerCase()}`, name: line.from },
      });
      await settled(h.store, GROUP);
    }
    return { requests: [...model.requests], shares: prefixShares(model.requests) };
  } finally {
    await closeAll();
    await model.close();
  }
}
