// `parley usage` shows the tokens of a conversation exactly as the model server reported them
// (prompt, completion, cached), per chat, person, day and model, with a cost from configured prices.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';
import { cliFor } from '../knowledge/helpers.ts';

afterEach(closeAll);

const parley = (dbFile: string, argv: string[], env: Record<string, string> = {}) => cliFor(dbFile, process.cwd(), env)(argv);

describe('parley usage', () => {
  it('adds up what the server reported, cached tokens included, per chat, person and day', async () => {
    // OpenAI's shape: usage in a last chunk with choices: [], cached input in prompt_tokens_details.
    const model = await FakeModelServer.start({ profile: 'openai' });
    const h = await createHarness({ model });
    const usage = [
      { prompt_tokens: 1_000, completion_tokens: 50, cached_tokens: 0 },
      { prompt_tokens: 1_200, completion_tokens: 70, cached_tokens: 1_000 },
      { prompt_tokens: 300, completion_tokens: 30, cached_tokens: 128 },
    ];
    for (const u of usage) model.enqueue({ text: 'ok', usage: u });
    const alice = { id: 'u-alice', name: 'Alice' };
    const bob = { id: 'u-bob', name: 'Bob' };
    await h.adapter.say('first', { chatType: 'group', mention: true, from: alice });
    await settled(h.store, 'memory:group-1');
    await h.adapter.say('second', { chatType: 'group', mention: true, from: bob });
    await settled(h.store, 'memory:group-1');
    await h.adapter.say('in private', { from: alice });
    await settled(h.store, 'memory:dm-u-alice');
    await h.stop();

    const byChat = await parley(h.dbFile, ['usage', '--by', 'chat', '--json']);
    expect(byChat.code, byChat.err).toBe(0);
    const chats = JSON.parse(byChat.out) as { rows: Record<string, unknown>[] };
    expect(chats.rows).toEqual([
      { key: 'memory:group-1', turns: 2, promptTokens: 2_200, completionTokens: 120, cachedTokens: 1_000, totalTokens: 2_320 },
      { key: 'memory:dm-u-alice', turns: 1, promptTokens: 300, completionTokens: 30, cachedTokens: 128, totalTokens: 330 },
    ]);

    const byPerson = JSON.parse((await parley(h.dbFile, ['usage', '--by', 'person', '--json'])).out) as { rows: Record<string, unknown>[] };
    expect(byPerson.rows).toEqual([
      { key: 'memory:u-alice', name: 'Alice', turns: 2, promptTokens: 1_300, completionTokens: 80, cachedTokens: 128, totalTokens: 1_380 },
      { key: 'memory:u-bob', name: 'Bob', turns: 1, promptTokens: 1_200, completionTokens: 70, cachedTokens: 1_000, totalTokens: 1_270 },
    ]);

    // Prices per million tokens: cached input at its own price.
    const prices = { PARLEY_PRICE_INPUT: '2', PARLEY_PRICE_CACHED_INPUT: '0.5', PARLEY_PRICE_OUTPUT: '8' };
    const byDay = JSON.parse((await parley(h.dbFile, ['usage', '--by', 'day', '--since', '1d', '--json'], prices)).out) as {
      rows: { key: string; totalTokens: number; cost: number }[];
    };
    expect(byDay.rows).toHaveLength(1);
    expect(byDay.rows[0]!.key).toBe(new Date().toISOString().slice(0, 10));
    expect(byDay.rows[0]!.totalTokens).toBe(2_650);
    // (2,500 - 1,128) × 2 + 1,128 × 0.5 + 150 × 8, per million.
    expect(byDay.rows[0]!.cost).toBeCloseTo((1_372 * 2 + 1_128 * 0.5 + 150 * 8) / 1_000_000, 12);

    // With the OPENAI_* variables alone, every turn was answered by the model named "default".
    const byModel = JSON.parse((await parley(h.dbFile, ['usage', '--by', 'model', '--json'])).out) as { rows: Record<string, unknown>[] };
    expect(byModel.rows).toEqual([
      { key: 'default', turns: 3, promptTokens: 2_500, completionTokens: 150, cachedTokens: 1_128, totalTokens: 2_650 },
    ]);

    const table = await parley(h.dbFile, ['usage', '--by', 'chat']);
    expect(table.out).toMatch(/memory:group-1\W+2\W+2,200\W+1,000\W+120\W+2,320/);
    expect((await parley(h.dbFile, ['usage', '--since', 'soon'])).code).toBe(2);
    await model.close();
  });
});
