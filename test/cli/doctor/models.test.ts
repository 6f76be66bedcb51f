// `parley doctor` checks every configured model, as `parley start` reads them (the OPENAI_* one and
// parley.config.yaml's), each under its own name, and names a mistake in the models block.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../../fakes/model-server.ts';
import { closedPort, doctor, migratedDatabase } from './run.ts';

let base: Awaited<ReturnType<typeof migratedDatabase>>;
const servers: FakeModelServer[] = [];

beforeAll(async () => {
  base = await migratedDatabase();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('parley doctor: several models', () => {
  it('checks each model under its name, and names the one that is down', async () => {
    const main = await FakeModelServer.start();
    servers.push(main);
    main.setModels(['big']);
    main.enqueue({ text: 'OK' }, { toolCalls: [{ name: 'get_secret_number', arguments: {} }] }, { text: 'It is 4711.' });
    const port = await closedPort();
    writeFileSync(
      join(base.cwd, 'parley.config.yaml'),
      [
        'models:',
        '  fallback: [backup]',
        '  endpoints:',
        `    main: { baseUrl: "${main.url}", model: big, apiKeyEnv: MAIN_KEY }`,
        `    backup: { baseUrl: "http://127.0.0.1:${port}/v1", model: small }`,
        '',
      ].join('\n'),
    );
    const run = await doctor(base, { MAIN_KEY: 'sk-main-key-0123' });
    expect(run.code).toBe(1);
    expect(run.find('model main', 'model name')).toMatchObject({ status: 'ok' });
    expect(run.find('model main', 'tool call')).toMatchObject({ status: 'ok' });
    expect(run.find('model backup')).toMatchObject({ status: 'problem', detail: 'not reachable: ECONNREFUSED' });
    expect(main.modelListRequests[0]?.authorization).toBe('Bearer sk-main-key-0123');
    expect(run.out).not.toContain('sk-main-key-0123');

    writeFileSync(join(base.cwd, 'parley.config.yaml'), 'models:\n  endpoints:\n    main: { model: big, apiKeyEnv: MAIN_KEY }\n');
    const broken = await doctor(base, {});
    expect(broken.find('model', 'configuration')).toMatchObject({
      status: 'problem',
      detail:
        'Invalid configuration in parley.config.yaml (1 mistake): parley.config.yaml:3: models.endpoints.main.apiKeyEnv: MAIN_KEY is not set in the environment (.env)',
    });
  });
});
