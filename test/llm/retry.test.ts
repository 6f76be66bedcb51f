// Defect 9, at the client: a busy model server is waited out within the retry budget (not limited
// by OPENAI_MAX_RETRIES), other failures are retried at most maxRetries times, nothing is retried
// once the answer has started streaming, and an abort ends a wait at once.
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { backoffMs } from '../../src/core/delivery.ts';
import { createLlmClient, type LlmClientOptions } from '../../src/llm/client.ts';
import { LlmError, toLlmError } from '../../src/llm/errors.ts';
import { nextWait, retryAfterMs, retryVerdict } from '../../src/llm/retry.ts';
import type { BusyWait } from '../../src/llm/types.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { llmFailure } from '../helpers/llm-failure.ts';

let model: FakeModelServer;
beforeAll(async () => {
  model = await FakeModelServer.start();
});
afterAll(() => model.close());

function client(overrides: Partial<LlmClientOptions> = {}) {
  return createLlmClient({ baseUrl: model.url, apiKey: 'k', model: 'fake', timeoutMs: 5_000, maxRetries: 1, ...overrides });
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** An LlmError as the client makes it from an HTTP answer. */
function httpFailure(status: number, headers: Record<string, string> = {}): LlmError {
  return toLlmError(OpenAI.APIError.generate(status, { error: { message: 'x' } }, undefined, new Headers(headers)));
}

describe('model retries', () => {
  it('waits out busy answers (429 with Retry-After) beyond maxRetries, telling each wait', async () => {
    model.enqueue(
      { status: 429, retryAfter: '0.2' },
      { status: 503 },
      { status: 429, retryAfter: '0.2' },
      { status: 529, retryAfter: '0' },
      { text: 'made it' },
    );
    const before = model.requests.length;
    const waits: BusyWait[] = [];
    const result = await client({ maxRetries: 0 }).complete(ask, { onBusy: (w) => waits.push(w) });
    expect(result.text).toBe('made it');
    expect(model.requests.length - before).toBe(5);
    expect(waits.map((w) => [w.attempt, w.status])).toEqual([
      [1, 429],
      [2, 503],
      [3, 429],
      [4, 529],
    ]);
    expect(waits[0]!.retryInMs).toBe(200);
    expect(waits[3]!.retryInMs).toBe(0);
  });

  it('gives up at once when the server asks for a wait longer than what is left of the budget', async () => {
    model.enqueue({ status: 429, retryAfter: '30' });
    const before = model.requests.length;
    const waits: BusyWait[] = [];
    const error = await llmFailure(client({ retryBudgetMs: 5_000 }).complete(ask, { onBusy: (w) => waits.push(w) }));
    expect(error.kind).toBe('rate_limit');
    expect(model.requests.length - before).toBe(1);
    expect(waits).toEqual([]);
  });

  it('retries other failures at most maxRetries times, and says nothing about being busy', async () => {
    // A third request would get the fake's fallback (a 500) and show in the count.
    model.enqueue({ status: 502 }, { status: 500 });
    const before = model.requests.length;
    const waits: BusyWait[] = [];
    const error = await llmFailure(client({ maxRetries: 1 }).complete(ask, { onBusy: (w) => waits.push(w) }));
    expect(error.status).toBe(500);
    expect(model.requests.length - before).toBe(2);
    expect(waits).toEqual([]);
  });

  it('retries a request that timed out before any data, but not a stream cut after text arrived', async () => {
    model.enqueue({ hang: true }, { text: 'second try' });
    const before = model.requests.length;
    expect((await client({ idleTimeoutMs: 300 }).complete(ask)).text).toBe('second try');
    expect(model.requests.length - before).toBe(2);

    // A retry would get the fake's fallback (a 500); there must be none.
    model.enqueue({ hang: true, text: 'half an answ' });
    const again = model.requests.length;
    expect((await llmFailure(client({ idleTimeoutMs: 300 }).complete(ask))).kind).toBe('timeout');
    expect(model.requests.length - again).toBe(1);
  });

  it('an abort ends a wait at once', async () => {
    model.enqueue({ status: 429, retryAfter: '30' });
    const before = model.requests.length;
    const controller = new AbortController();
    const started = Date.now();
    const onBusy = () => void setTimeout(() => controller.abort(new Error('stop')), 200);
    const error = await llmFailure(client().complete(ask, { signal: controller.signal, onBusy }));
    expect(error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(model.requests.length - before).toBe(1);
  });

  it('classifies answers: busy, transient, final; honours x-should-retry', () => {
    expect(retryVerdict(httpFailure(429))).toEqual({ retry: true, busy: true, status: 429 });
    expect(retryVerdict(httpFailure(503))).toMatchObject({ retry: true, busy: true });
    expect(retryVerdict(httpFailure(502))).toMatchObject({ retry: true, busy: false });
    expect(retryVerdict(httpFailure(500, { 'retry-after': '3' }))).toMatchObject({ retry: true, busy: true, retryAfterMs: 3_000 });
    expect(retryVerdict(httpFailure(400))).toEqual({ retry: false });
    expect(retryVerdict(httpFailure(401))).toEqual({ retry: false });
    expect(retryVerdict(httpFailure(429, { 'x-should-retry': 'false' }))).toEqual({ retry: false });
    expect(retryVerdict(httpFailure(400, { 'x-should-retry': 'true' }))).toMatchObject({ retry: true, busy: false });
    expect(retryVerdict(new LlmError('aborted', 'stopped'))).toEqual({ retry: false });
    expect(retryVerdict(new Error('not from the client'))).toEqual({ retry: false });
  });

  it('OPENAI_RETRY_BUDGET is a duration, two minutes by default; a bad value is named', () => {
    expect(loadConfig({}).model).toMatchObject({ retryBudgetMs: 120_000, maxRetries: 3 });
    expect(loadConfig({ OPENAI_RETRY_BUDGET: '45s' }).model.retryBudgetMs).toBe(45_000);
    expect(() => loadConfig({ OPENAI_RETRY_BUDGET: 'forever' })).toThrow(/OPENAI_RETRY_BUDGET expects a duration/);
  });

  it('reads Retry-After in milliseconds, seconds or as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }), now)).toBe(1_500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('never plans a wait past the budget, and counts only non-busy retries against maxRetries', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ busy: fc.boolean(), after: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }) }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 300_000 }),
        fc.integer({ min: 0, max: 10 }),
        (failures, budgetMs, maxRetries) => {
          const state = { startedAt: 0, transientRetries: 0 };
          let now = 0;
          let transient = 0;
          for (const [index, f] of failures.entries()) {
            const verdict = { retry: true as const, busy: f.busy, ...(f.after !== undefined ? { retryAfterMs: f.after } : {}) };
            const wait = nextWait(verdict, index + 1, state, { budgetMs, maxRetries }, now);
            if (wait === undefined) return;
            if (!f.busy) transient++;
            expect(transient).toBeLessThanOrEqual(maxRetries);
            if (f.after !== undefined) expect(wait).toBe(f.after);
            now += wait;
            expect(now).toBeLessThanOrEqual(budgetMs);
          }
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it('backs off exponentially with jitter, within [75%, 100%] of the capped delay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const full = Math.min(30_000, 500 * 2 ** (attempt - 1));
        const wait = backoffMs(attempt, { baseMs: 500, capMs: 30_000 }, () => r);
        expect(wait).toBeGreaterThanOrEqual(Math.floor(full * 0.75));
        expect(wait).toBeLessThanOrEqual(full);
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
