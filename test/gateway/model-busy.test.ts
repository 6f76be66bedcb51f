// Defect 9: a model outage (a storm of 429s with Retry-After) must delay answers, not fail them.
// The whole core runs (gateway, agent, renderer) against the fake model server with the default
// retry budget and OPENAI_MAX_RETRIES=2 (the harness's): turns sent during a 20 s storm are all
// answered after it, each chat is told once that the model is busy, and /stop ends a wait at once.
import { afterEach, describe, expect, it } from 'vitest';
import { t } from '../../src/core/i18n/index.ts';
import { MemoryAdapter, type FakeUser } from '../fakes/memory-adapter.ts';
import type { RecordedRequest, Step } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled, waitFor } from '../helpers/harness.ts';

afterEach(closeAll);

const MODEL_BUSY = t('en', 'chat.modelBusy');
const BUSY_SHOWN = `_${MODEL_BUSY}_`;

/** 429 (Retry-After `retryAfter` s) until `until`, then an answer naming the question. */
function storm(until: number, retryAfter: string) {
  return (request: RecordedRequest): Step => {
    if (Date.now() < until)
      return { status: 429, retryAfter, body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } } };
    const question = String(request.body.messages.findLast((m) => m.role === 'user')?.content ?? '');
    return { text: `Answer to ${question}`, chunkSize: 6, delayMs: 5 };
  };
}

describe('a model outage', () => {
  it('answers turns sent during a 20 s storm of 429s (Retry-After 2) after it, telling each chat once that the model is busy', {
    timeout: 90_000,
  }, async () => {
    const h = await createHarness();
    const people: FakeUser[] = Array.from({ length: 10 }, (_, i) => ({ id: `u${i}`, name: `Person ${i}` }));
    const stormEnds = Date.now() + 20_000;
    h.model.setFallback(storm(stormEnds, '2'));

    for (const [i, person] of people.entries()) {
      await h.adapter.say(`question ${i}`, { from: person });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
    expect(Date.now()).toBeLessThan(stormEnds);
    const turns = await Promise.all(people.map((p) => settled(h.store, `memory:dm-${p.id}`, 60_000)));

    const answered = people.filter((p, i) => h.adapter.lastBotMessage(`dm-${p.id}`)?.text === `Answer to question ${i}`);
    expect(answered.length).toBeGreaterThanOrEqual(9);
    expect(turns.flat().filter((t) => t.status === 'done').length).toBe(answered.length);
    for (const person of people) {
      // One message: the placeholder, replaced in place by the answer; the busy text shown once.
      const messages = h.adapter.botMessages(`dm-${person.id}`);
      expect(messages).toHaveLength(1);
      expect(messages[0]!.versions[0]).toBe(BUSY_SHOWN);
      expect(messages[0]!.versions.filter((v) => v.includes(MODEL_BUSY))).toHaveLength(1);
    }
    const refused = h.model.requests.filter((r) => r.receivedAt < stormEnds).length;
    expect(refused).toBeGreaterThan(50); // every turn kept asking, about every 2 s
  });

  it('where messages cannot be edited, says so in one message and answers in another', { timeout: 30_000 }, async () => {
    const adapter = new MemoryAdapter({ capabilities: { canEdit: false } });
    const h = await createHarness({ adapters: [adapter] });
    h.model.setFallback(storm(Date.now() + 2_500, '1'));
    await adapter.say('question 0');
    await settled(h.store, 'memory:dm-u-alice', 20_000);
    await waitFor(() => adapter.botMessages().length === 2, 'two messages');
    expect(adapter.botMessages().map((m) => m.text)).toEqual([MODEL_BUSY, 'Answer to question 0']);
  });

  it('/stop ends the wait at once', { timeout: 30_000 }, async () => {
    const h = await createHarness();
    h.model.setFallback(storm(Date.now() + 60_000, '30'));
    await h.adapter.say('question 0');
    await waitFor(() => h.adapter.lastBotMessage()?.text === BUSY_SHOWN, 'the busy placeholder');
    const stoppedAt = Date.now();
    await h.adapter.say('/stop');
    const [turn] = await settled(h.store, 'memory:dm-u-alice', 10_000);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(turn!.status).toBe('cancelled');
    expect(h.model.requests).toHaveLength(1);
    await waitFor(() => h.adapter.botMessages().at(0)?.text.includes('Stopped'), 'the placeholder to say it stopped');
  });
});
