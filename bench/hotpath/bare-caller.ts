// The bare openai calls of the hot-path benchmark, made from a process of their own (see
// bare-calls.ts): asked over IPC with the request bodies, it sends them one after another and
// answers with the time they took, measured here.
// Env: OPENAI_BASE_URL.
import OpenAI from 'openai';
import { z } from 'zod';

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

const Ask = z.object({ id: z.number(), bodies: z.array(z.record(z.string(), z.unknown())) });
const openai = new OpenAI({ baseURL: z.url().parse(process.env.OPENAI_BASE_URL), apiKey: 'bench', maxRetries: 0 });

async function timed(bodies: Body[]): Promise<number> {
  const started = performance.now();
  for (const body of bodies) {
    const stream = await openai.chat.completions.create(body);
    for await (const _ of stream);
  }
  return performance.now() - started;
}

process.on('message', (message: unknown) => {
  const ask = Ask.parse(message);
  timed(ask.bodies.map((body) => ({ ...(body as unknown as Body), stream: true }))).then(
    (ms) => process.send?.({ id: ask.id, ms }),
    (error: unknown) => process.send?.({ id: ask.id, error: String(error) }),
  );
});
process.send?.({ ready: true });
