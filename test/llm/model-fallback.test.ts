// Two configured models, each its own fake OpenAI-compatible server: a request goes to the chat's
// model and, when that one fails before any text reached the chat (busy past its retry budget, a
// 5xx after its retries, no data in time), to the next of the fallback chain. A failure after text
// streamed, or one another model would not fix (a 400), is not handed on. Each turn records the
// model that answered; `parley usage --by model` adds them up.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelsInput } from '../../src/config/models.ts';
import { adminUrl, freshDatabase } from '../cluster/pg-database.ts';
import { ALICE } from '../fakes/memory-adapter.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { closeAll, createHarness, settled } from '../helpers/harness.ts';

let primary: FakeModelServer;
let backup: FakeModelServer;

beforeEach(async () => {
  primary = await FakeModelServer.start();
  backup = await FakeModelServer.start();
});
afterEach(async () => {
  await closeAll();
  await primary.close();
  await backup.close();
});

function models(): ModelsInput {
  return {
    default: 'primary',
    fallback: ['backup'],
    endpoints: {
      // No retries of 5xx or timeouts, a short idle timeout and budget: each failure falls back at once.
      primary: { baseUrl: primary.url, model: 'big-model', timeout: '1s', maxRetries: 0, retryBudget: '1s' },
      backup: { baseUrl: backup.url, model: 'small-model', capabilities: { tools: false } },
    },
  };
}

const DM = `dm-${ALICE.id}`;
const KEY = `memory:${DM}`;

describe('the fallback chain', () => {
  it('hands a request refused as busy past its retry budget (503) to the next model, which answers', async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ status: 503, retryAfter: '30', body: { error: { message: 'overloaded' } } });
    backup.enqueue({ text: 'Hello from the backup.', usage: { prompt_tokens: 11, completion_tokens: 5 } });

    await h.adapter.say('hello');
    const [turn] = await settled(h.store, KEY);
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('Hello from the backup.');
    expect(primary.requests.map((r) => r.body.model)).toEqual(['big-model']);
    expect(backup.requests.map((r) => r.body.model)).toEqual(['small-model']);
    // The backup takes no tools: its request goes without them.
    expect(backup.requests[0]!.body.tools).toBeUndefined();
    expect(turn!.status).toBe('done');
    expect(await h.store.usage.grouped('model', new Date(0))).toEqual([
      expect.objectContaining({ key: 'backup', turns: 1, promptTokens: 11, completionTokens: 5 }),
    ]);
    expect(h.app.modelHealths.get('primary')!.state).toMatchObject({ kind: 'failing' });
    expect(h.app.modelHealths.get('backup')!.state).toEqual({ kind: 'answering' });
  });

  it('hands on a model that sends nothing in time, but not one that stops after text reached the chat', async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ hang: true });
    backup.enqueue({ text: 'The backup answers.' });
    await h.adapter.say('first');
    await settled(h.store, KEY);
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('The backup answers.');
    expect(backup.requests).toHaveLength(1);

    primary.enqueue({ hang: true, text: 'I started to answer and then' });
    await h.adapter.say('second');
    const turns = await settled(h.store, KEY);
    expect(backup.requests).toHaveLength(1);
    expect(turns.find((t) => t.status === 'failed')).toBeDefined();
    expect(h.adapter.lastBotMessage(DM)!.text).toContain('I started to answer and then');
  });

  it("asks the model that answered first in the turn's later rounds", async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ status: 503, retryAfter: '30' });
    backup.enqueue({ toolCalls: [{ name: 'search_knowledge', arguments: { query: 'opening hours' } }] }, { text: 'Nothing on file.' });
    await h.adapter.say('when do you open?');
    const [turn] = await settled(h.store, KEY);
    expect(turn).toMatchObject({ status: 'done', rounds: 2 });
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('Nothing on file.');
    // The tool round went straight to the backup; the primary was asked once.
    expect(primary.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(2);

    // The next turn starts with the chosen model again.
    primary.enqueue({ text: 'Primary is back.' });
    await h.adapter.say('and tomorrow?');
    await settled(h.store, KEY);
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('Primary is back.');
    expect(primary.requests).toHaveLength(2);
  });

  it('hands on a server error (500) once the model has no retries left', async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ status: 500, body: { error: { message: 'internal error' } } });
    backup.enqueue({ text: 'Backup after a 500.' });
    await h.adapter.say('hello');
    const [turn] = await settled(h.store, KEY);
    expect(turn!.status).toBe('done');
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('Backup after a 500.');
    expect(primary.requests).toHaveLength(1);
  });

  it('does not hand on a request the model refused as malformed (400)', async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ status: 400, body: { error: { message: 'bad request: messages[0] is invalid' } } });
    await h.adapter.say('hello');
    const [turn] = await settled(h.store, KEY);
    expect(turn!.status).toBe('failed');
    expect(backup.requests).toHaveLength(0);
  });

  it('uses the answering model of each turn for usage: the primary when it answers', async () => {
    const h = await createHarness({ noModel: true, models: models() });
    primary.enqueue({ text: 'Primary here.', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    await h.adapter.say('hello');
    await settled(h.store, KEY);
    expect(h.adapter.lastBotMessage(DM)!.text).toBe('Primary here.');
    expect(backup.requests).toHaveLength(0);
    const [row] = await h.store.usage.grouped('model', new Date(0));
    expect(row).toMatchObject({ key: 'primary', turns: 1, promptTokens: 7, completionTokens: 3 });
  });

  it('records the answering model also when the server reports no usage', async () => {
    const setup = models();
    setup.endpoints.backup = { ...setup.endpoints.backup!, streamUsage: false };
    const h = await createHarness({ noModel: true, models: setup });
    primary.enqueue({ status: 503, retryAfter: '30' });
    backup.enqueue({ text: 'No usage from me.' });
    await h.adapter.say('hello');
    await settled(h.store, KEY);
    expect(backup.requests[0]!.body.stream_options).toBeUndefined();
    expect(await h.store.usage.grouped('model', new Date(0))).toEqual([
      expect.objectContaining({ key: 'backup', turns: 1, promptTokens: 0, totalTokens: 0 }),
    ]);
  });

  it.skipIf(!adminUrl)('records the answering model and reads a chat choice on PostgreSQL too', async () => {
    const database = await freshDatabase('parley_models');
    try {
      const h = await createHarness({ noModel: true, models: models(), databaseUrl: database.url });
      primary.enqueue({ status: 503, retryAfter: '30' });
      backup.enqueue({ text: 'Backup on PostgreSQL.', usage: { prompt_tokens: 4, completion_tokens: 2 } });
      await h.adapter.say('hello');
      await settled(h.store, KEY);
      expect(await h.store.usage.grouped('model', new Date(0))).toEqual([
        expect.objectContaining({ key: 'backup', turns: 1, promptTokens: 4, completionTokens: 2 }),
      ]);
      // The choice is an upsert (set twice, one row), and the chat's next turn asks it first.
      await h.store.chatModels.set('memory', DM, 'backup', `memory:${ALICE.id}`);
      await h.store.chatModels.set('memory', DM, 'backup', `memory:${ALICE.id}`);
      backup.enqueue({ text: 'Chosen on PostgreSQL.' });
      await h.adapter.say('again');
      await settled(h.store, KEY);
      expect(h.adapter.lastBotMessage(DM)!.text).toBe('Chosen on PostgreSQL.');
      expect(primary.requests).toHaveLength(1);
      expect((await h.store.usage.grouped('model', new Date(0)))[0]).toMatchObject({ key: 'backup', turns: 2 });
      await h.stop();
    } finally {
      await database.drop();
    }
  });
});
