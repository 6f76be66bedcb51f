// The model's own share of a 3-round turn, timed without any bot: three streamed openai calls in a
// row, sent straight to the fake model. `replay` sends the very requests a turn just made (its
// system prompt, tools and history included), so what the model spends on a bigger request counts
// as the model's; `tiny` sends three one-line questions, the yardstick the issue first used.
import OpenAI from 'openai';
import type { FakeModelServer, RecordedRequest } from '../../test/fakes/model-server.ts';

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

export class BareCalls {
  readonly #model: FakeModelServer;
  readonly #openai: OpenAI;
  #asked = 0;

  constructor(model: FakeModelServer) {
    this.#model = model;
    this.#openai = new OpenAI({ baseURL: model.url, apiKey: 'bench', maxRetries: 0 });
  }

  /** Requests the fake model receives from now on, until the returned function is called. */
  record(): () => RecordedRequest[] {
    const from = this.#model.requests.length;
    return () => this.#model.requests.slice(from);
  }

  /** Three one-line questions (ms). */
  tiny(): Promise<number> {
    return this.#timed(
      Array.from({ length: 3 }, () => ({ model: 'fake', messages: [{ role: 'user', content: `ask b${++this.#asked}` }], stream: true })),
    );
  }

  /** The recorded requests sent again, one after another (ms). */
  replay(requests: RecordedRequest[]): Promise<number> {
    return this.#timed(requests.map((r) => ({ ...(r.body as unknown as Body), stream: true })));
  }

  async #timed(bodies: Body[]): Promise<number> {
    const started = performance.now();
    for (const body of bodies) {
      const stream = await this.#openai.chat.completions.create(body);
      for await (const _ of stream);
    }
    return performance.now() - started;
  }
}
