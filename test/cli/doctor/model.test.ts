// `parley doctor` names each mistake of the model's configuration (closed port, wrong key, wrong
// model, a model that does not call tools) against the fake OpenAI-compatible server, and exits 1
// on a problem; a healthy setup passes every model and database check and exits 0.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../../fakes/model-server.ts';
import { API_KEY, closedPort, doctor, migratedDatabase, modelEnv } from './run.ts';

let model: FakeModelServer | undefined;
let base: Awaited<ReturnType<typeof migratedDatabase>>;

beforeAll(async () => {
  base = await migratedDatabase();
});
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('parley doctor: the model and the database', () => {
  it('passes a healthy setup: model listed, a streamed answer, a tool call round-trip, migrations applied', async () => {
    model = await FakeModelServer.start();
    model.setModels(['other-model', 'gpt-x']);
    model.enqueue({ text: 'OK' }, { toolCalls: [{ name: 'get_secret_number', arguments: {} }] }, { text: 'The secret number is 4711.' });
    const run = await doctor(base, modelEnv(model.url));
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.find('database')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/all \d+ migrations applied/) });
    expect(run.find('model', 'model name')).toMatchObject({ status: 'ok' });
    expect(run.find('model', 'streamed answer')).toMatchObject({ status: 'ok', detail: 'answered "OK"' });
    expect(run.find('model', 'tool call')).toMatchObject({ status: 'ok' });
    // The tool's result went back to the model: a real round-trip.
    expect(model.requests[2]?.body.messages.at(-1)).toMatchObject({ role: 'tool', content: '4711' });
    expect(model.modelListRequests[0]?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(run.out).not.toContain(API_KEY);
  });

  it('says "not reachable: ECONNREFUSED" for a closed port and exits 1', async () => {
    const run = await doctor(base, modelEnv(`http://127.0.0.1:${await closedPort()}/v1`));
    expect(run.code).toBe(1);
    expect(run.find('model')).toMatchObject({
      status: 'problem',
      detail: 'not reachable: ECONNREFUSED',
      fix: expect.stringContaining('OPENAI_BASE_URL'),
    });
    expect(run.err).toContain('1 problem(s) found');
  });

  it('says the key is refused (401), from the model list', async () => {
    model = await FakeModelServer.start();
    model.setModels({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const run = await doctor(base, modelEnv(model.url));
    expect(run.code).toBe(1);
    expect(run.find('model')).toMatchObject({ status: 'problem', detail: 'refused the API key (401)' });
    expect(model.requests).toHaveLength(0);
  });

  it('says the model is unknown when the list lacks it, naming the ones it has', async () => {
    model = await FakeModelServer.start();
    model.setModels(['gpt-4o', 'gpt-4o-mini']);
    const run = await doctor(base, modelEnv(model.url, 'gpt-typo'));
    expect(run.code).toBe(1);
    expect(run.find('model', 'model name')).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(/unknown model.*gpt-4o, gpt-4o-mini/),
    });
  });

  it('tolerates a server without GET /models: an unknown model shows in the answer (404)', async () => {
    model = await FakeModelServer.start();
    model.enqueue({ status: 404, body: { error: { message: 'The model `gpt-typo` does not exist', code: 'model_not_found' } } });
    const run = await doctor(base, modelEnv(model.url, 'gpt-typo'));
    expect(run.code).toBe(1);
    expect(run.find('model', 'model name')).toMatchObject({ status: 'skipped' });
    expect(run.find('model', 'streamed answer')).toMatchObject({ status: 'problem', detail: 'unknown model (404)' });
  });

  it('says "this model does not call tools" (a warning: exit 0)', async () => {
    model = await FakeModelServer.start({ profile: 'ollama' });
    model.enqueue({ text: 'OK' }, { text: 'I do not know any secret number.' });
    const run = await doctor(base, modelEnv(model.url));
    expect(run.find('model', 'tool call')).toMatchObject({
      status: 'warning',
      detail: expect.stringContaining('this model does not call tools'),
    });
    expect(run.code, run.out).toBe(0);
  });

  it('prints a table for people', async () => {
    const run = await doctor(base, modelEnv(`http://127.0.0.1:${await closedPort()}/v1`), [], false);
    expect(run.out).toMatch(/model\s.*PROBLEM\s.*not reachable: ECONNREFUSED/);
    expect(run.out).toMatch(/database\s.*OK\s/);
  });
});
