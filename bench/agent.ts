// Agent/gateway benchmark on SQLite with the fake model answering at once:
// - framework overhead per three-round tool turn (p50/p99), with the model's HTTP time shown
//   separately and subtracted;
// - turns per second with 100 sessions running concurrently.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createApp } from '../src/app.ts';
import { defineTool, type AnyTool } from '../src/agent/tools.ts';
import { loadConfig } from '../src/config/config.ts';
import type { ChatRef, OutboundMessage, SentRef } from '../src/core/types.ts';
import { createLlmClient } from '../src/llm/client.ts';
import type { LlmClient } from '../src/llm/types.ts';
import { silentLogger } from '../src/log.ts';
import { openStore } from '../src/store/store.ts';
import { MemoryAdapter } from '../test/fakes/memory-adapter.ts';
import { FakeModelServer } from '../test/fakes/model-server.ts';

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  parameters: z.object({ step: z.number() }),
  approval: 'never',
  async execute({ step }) {
    return `step ${step} ok`;
  },
}) as AnyTool;

/** Resolves a waiter when a message with the expected final text is sent or edited. */
class BenchAdapter extends MemoryAdapter {
  readonly #waiters = new Map<string, () => void>();
  expect(text: string): Promise<void> {
    return new Promise((resolve) => this.#waiters.set(text, resolve));
  }
  #check(text: string) {
    const done = this.#waiters.get(text);
    if (done) {
      this.#waiters.delete(text);
      done();
    }
  }
  override async send(chat: ChatRef, message: OutboundMessage): Promise<SentRef> {
    const ref = await super.send(chat, message);
    this.#check(message.text);
    return ref;
  }
  override async edit(ref: SentRef, message: OutboundMessage): Promise<void> {
    await super.edit(ref, message);
    this.#check(message.text);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function timedClient(inner: LlmClient, spent: { ms: number }): LlmClient {
  return {
    model: inner.model,
    async complete(request, options) {
      const started = performance.now();
      try {
        return await inner.complete(request, options);
      } finally {
        spent.ms += performance.now() - started;
      }
    },
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const model = await FakeModelServer.start();
  // Three rounds: two tool rounds, then the answer (unique per user, so completion is detectable).
  model.setFallback((request) => {
    const rounds = request.body.messages.filter((m) => m.role === 'tool').length;
    const user = request.body.messages.findLast((m) => m.role === 'user')!.content!;
    return rounds < 2
      ? { toolCalls: [{ name: 'noop', arguments: { step: rounds + 1 } }], chunkSize: 64 }
      : { text: `answer to ${user}`, chunkSize: 64 };
  });
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake',
    OPENAI_API_KEY: 'bench',
    PARLEY_LOG_LEVEL: 'silent',
  });
  const store = await openStore(config.database);
  const adapter = new BenchAdapter();
  const modelTime = { ms: 0 };
  const llm = timedClient(
    createLlmClient({ baseUrl: model.url, apiKey: 'bench', model: 'fake', timeoutMs: 30_000, maxRetries: 0 }),
    modelTime,
  );
  const app = createApp({ config, store, adapters: [adapter], log: silentLogger, llm, tools: [noop], sweepIntervalMs: 60_000 });
  await app.start();

  let counter = 0;
  const oneTurn = async (user: string) => {
    const text = `message ${++counter}`;
    const done = adapter.expect(`answer to ${text}`);
    await adapter.say(text, { from: { id: user, name: user } });
    await done;
  };

  // Sequential turns: latency of one three-round turn.
  for (let i = 0; i < 20; i++) await oneTurn(`warmup-${i}`);
  const total: number[] = [];
  const overhead: number[] = [];
  for (let i = 0; i < 200; i++) {
    modelTime.ms = 0;
    const started = performance.now();
    await oneTurn(`user-${i}`);
    const elapsed = performance.now() - started;
    total.push(elapsed);
    overhead.push(elapsed - modelTime.ms);
  }
  total.sort((a, b) => a - b);
  overhead.sort((a, b) => a - b);
  console.log('three-round tool turn (2 tool rounds + answer), 200 turns, one at a time');
  console.log(`  turn latency           p50 ${percentile(total, 50).toFixed(1)} ms   p99 ${percentile(total, 99).toFixed(1)} ms`);
  console.log(
    `  framework overhead     p50 ${percentile(overhead, 50).toFixed(1)} ms   p99 ${percentile(overhead, 99).toFixed(1)} ms   (turn minus time inside model calls)`,
  );
  console.log(`  overhead share of turn p50 ${((percentile(overhead, 50) / percentile(total, 50)) * 100).toFixed(0)} %`);

  // 100 sessions at once, 5 turns each.
  const sessions = 100;
  const perSession = 5;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      for (let t = 0; t < perSession; t++) await oneTurn(`concurrent-${s}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const turns = sessions * perSession;
  console.log(`concurrency: ${sessions} sessions × ${perSession} three-round turns on SQLite`);
  console.log(
    `  ${turns} turns in ${seconds.toFixed(2)} s = ${(turns / seconds).toFixed(1)} turns/s (${((turns * 3) / seconds).toFixed(1)} model calls/s)`,
  );
  console.log(`  vs one at a time: ${(turns / seconds / (1000 / percentile(total, 50))).toFixed(2)}× the sequential rate`);

  await app.stop(1_000);
  await store.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}
