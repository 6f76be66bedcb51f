// `npm start` checks the model cheaply (GET /models) before its ready block: the block says whether
// the model answers, with the cause and the fix when it does not, and /readyz reports it as
// `model` and `degraded` (still 200: the process takes webhooks and clicks meanwhile).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../cli/doctor/run.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { tempDir } from '../helpers/harness.ts';

afterEach(killAll);

async function readyz(output: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = /HTTP\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  if (!url) throw new Error(`no HTTP line in:\n${output}`);
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function env(baseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: `file:${join(tempDir(), 'parley.db')}`,
    OPENAI_BASE_URL: baseUrl,
    OPENAI_MODEL: 'gpt-x',
    OPENAI_API_KEY: 'sk-test',
  };
}

describe('the model in the ready block and /readyz', () => {
  it('says a model at a closed port is not reachable, and /readyz is degraded', async () => {
    const port = await closedPort();
    const parley = startParley(env(`http://127.0.0.1:${port}/v1`));
    await parley.ready();
    expect(parley.output()).toContain(`Model     gpt-x at http://127.0.0.1:${port}/v1: not reachable: ECONNREFUSED\n`);
    expect(parley.output()).toMatch(/ {12}Check OPENAI_BASE_URL/);
    expect(await readyz(parley.output())).toMatchObject({
      status: 200,
      body: { ready: true, degraded: true, model: { answering: false, detail: 'not reachable: ECONNREFUSED' } },
    });
  });

  it('says a listed model answers, and /readyz is not degraded', async () => {
    const model = await FakeModelServer.start();
    try {
      model.setModels(['gpt-x']);
      const parley = startParley(env(model.url));
      await parley.ready();
      expect(parley.output()).toContain(`Model     gpt-x at ${model.url}: answering\n`);
      expect(await readyz(parley.output())).toMatchObject({
        status: 200,
        body: { ready: true, degraded: false, model: { answering: true } },
      });
    } finally {
      await model.close();
    }
  });
});
