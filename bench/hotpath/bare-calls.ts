// The model's own share of a 3-round turn, timed without any bot: three streamed openai calls in a
// row, sent straight to the fake model. `replay` sends the very requests a turn just made (its
// system prompt, tools and history included), so what the model spends on a bigger request counts
// as the model's; `tiny` sends three one-line questions, the yardstick the issue first used.
// The calls are made from a child process (bare-caller.ts), as a bot makes them: a round trip
// between two processes wakes each side, which a call from the fake model's own process (one event
// loop for both ends) never pays, and which varies with the machine's load. `replayHere` sends them
// from this process, the yardstick used before, still printed for comparison.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { z } from 'zod';
import type { FakeModelServer, RecordedRequest } from '../../test/fakes/model-server.ts';

const Answer = z.union([
  z.object({ ready: z.literal(true) }),
  z.object({ id: z.number(), ms: z.number() }),
  z.object({ id: z.number(), error: z.string() }),
]);
const ANSWER_TIMEOUT_MS = 60_000;

export class BareCalls {
  readonly #model: FakeModelServer;
  readonly #child: ChildProcess;
  readonly #here: OpenAI;
  readonly #waiting = new Map<number, { resolve: (ms: number) => void; reject: (error: Error) => void }>();
  #asked = 0;
  #next = 0;

  private constructor(model: FakeModelServer, child: ChildProcess) {
    this.#model = model;
    this.#child = child;
    this.#here = new OpenAI({ baseURL: model.url, apiKey: 'bench', maxRetries: 0 });
    child.on('message', (message) => {
      const answer = Answer.parse(message);
      if ('ready' in answer) return;
      const waiter = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if ('ms' in answer) waiter?.resolve(answer.ms);
      else waiter?.reject(new Error(`bare calls failed: ${answer.error}`));
    });
  }

  static async start(model: FakeModelServer): Promise<BareCalls> {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bare-caller.ts')], {
      env: { ...process.env, OPENAI_BASE_URL: model.url },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the bare caller exited (${code}) before it was ready`)));
    });
    return new BareCalls(model, child);
  }

  /** Requests the fake model receives from now on, until the returned function is called. */
  record(): () => RecordedRequest[] {
    const from = this.#model.requests.length;
    return () => this.#model.requests.slice(from);
  }

  /** Three one-line questions (ms). */
  tiny(): Promise<number> {
    return this.#timed(
      Array.from({ length: 3 }, () => ({ model: 'fake', messages: [{ role: 'user', content: `ask b${++this.#asked}` }] })),
    );
  }

  /** The recorded requests sent again, one after another (ms). */
  replay(requests: RecordedRequest[]): Promise<number> {
    return this.#timed(requests.map((r) => r.body as unknown as Record<string, unknown>));
  }

  /** The recorded requests sent again from this process, the fake model's own (ms). */
  async replayHere(requests: RecordedRequest[]): Promise<number> {
    const started = performance.now();
    for (const request of requests) {
      const body = { ...(request.body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming), stream: true as const };
      for await (const _ of await this.#here.chat.completions.create(body));
    }
    return performance.now() - started;
  }

  #timed(bodies: Record<string, unknown>[]): Promise<number> {
    const id = ++this.#next;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`the bare calls took over ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      this.#waiting.set(id, {
        resolve: (ms) => {
          clearTimeout(timer);
          resolve(ms);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#child.send({ id, bodies });
    });
  }

  close(): void {
    this.#child.kill();
  }
}
