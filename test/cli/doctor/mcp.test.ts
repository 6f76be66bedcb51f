// `parley doctor` connects to the MCP servers of the configuration file as `parley mcp list` does:
// a server that answers is OK with its tools counted, one that cannot be reached is a problem.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeModelServer } from '../../fakes/model-server.ts';
import { killMcpChildren, stdioEntry, httpEntry, writeConfig } from '../../mcp/helpers.ts';
import { closedPort, doctor, migratedDatabase, modelEnv } from './run.ts';

let model: FakeModelServer;
beforeAll(async () => {
  model = await FakeModelServer.start();
  model.setModels(['gpt-x']).setFallback(() => ({ text: 'OK' }));
});
afterAll(async () => {
  killMcpChildren();
  await model.close();
});

describe('parley doctor: MCP servers', () => {
  it('reports each server: connected with its tools, or not reachable (exit 1)', async () => {
    const base = await migratedDatabase();
    const config = writeConfig(
      [
        'mcpServers:',
        stdioEntry('notes', join(base.cwd, 'stdio.log')),
        httpEntry('gone', `http://127.0.0.1:${await closedPort()}/mcp`),
        '',
      ].join('\n'),
      base.cwd,
    );
    const run = await doctor(base, { ...modelEnv(model.url), PARLEY_CONFIG: config });
    expect(run.find('mcp', 'notes')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^connected, \d+ tool\(s\)$/) });
    expect(run.find('mcp', 'gone')).toMatchObject({ status: 'problem', detail: expect.stringContaining('not connected') });
    expect(run.code).toBe(1);
  });
});
