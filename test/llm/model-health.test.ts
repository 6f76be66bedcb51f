// The model's health learns from each request: a failure says why at once and is checked again
// (cheaply, at most once per interval); a request that succeeds says the model answers again.
import { APIConnectionError } from 'openai/core/error';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { LlmError } from '../../src/llm/errors.ts';
import { ModelHealth } from '../../src/llm/model-health.ts';
import type { ModelState } from '../../src/llm/model-state.ts';
import { silentLogger } from '../../src/log.ts';

const config = loadConfig(
  { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_MODEL: 'gpt-x', DATABASE_URL: 'file::memory:' },
  process.cwd(),
);
const refused = new LlmError('other', 'Could not connect', {
  cause: new APIConnectionError({ cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) }),
});

describe('ModelHealth', () => {
  it('takes the cause from a failure, checks again at most once per interval, and follows a success', async () => {
    let now = 0;
    const found: ModelState[] = [{ kind: 'unreachable', reason: 'ECONNREFUSED' }, { kind: 'unknown_model' }];
    let checks = 0;
    const health = new ModelHealth({
      config: config.model,
      log: silentLogger,
      recheckMs: 30_000,
      now: () => now,
      check: async () => found[checks++]!,
    });
    expect(health.state).toEqual({ kind: 'unchecked' });

    health.failed(refused);
    expect(health.state).toEqual({ kind: 'unreachable', reason: 'ECONNREFUSED' });
    await health.check(); // the check the failure started
    expect(checks).toBe(1);

    now = 10_000;
    health.failed(refused);
    expect(checks).toBe(1);
    now = 45_000;
    health.failed(refused);
    await health.check();
    expect(checks).toBe(2);
    expect(health.state).toEqual({ kind: 'unknown_model' });

    const llm = health.observe({
      model: 'gpt-x',
      complete: async () => ({ text: 'ok', reasoning: '', toolCalls: [], finishReason: 'stop' }),
    });
    await llm.complete({ messages: [] });
    expect(health.state).toEqual({ kind: 'answering' });
  });
});
