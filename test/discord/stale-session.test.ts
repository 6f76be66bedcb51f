// A stored gateway session Discord no longer knows (a restart long after the last run, or a run
// that crashed while Discord dropped its session): the RESUME gets op 9 (invalid session) and the
// process identifies a new session and answers as usual.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../fakes/discord/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { killAll, startParley } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';

describe('a stale stored Discord session', () => {
  let dir: string;
  let dc: FakeDiscord;
  let model: FakeModelServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-stale-session-'));
    dc = await FakeDiscord.start();
    model = await FakeModelServer.start();
    model.setFallback((request) => ({ text: `answer to ${String(request.body.messages.at(-1)!.content)}` }));
  });
  afterAll(async () => {
    killAll();
    await dc?.close();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused with op 9 and replaced by a new IDENTIFY', { timeout: 60_000 }, async () => {
    const file = join(dir, 'parley.db');
    const env = {
      DISCORD_BOT_TOKEN: dc.token,
      DISCORD_API_ROOT: dc.apiRoot,
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'fake-model',
      OPENAI_API_KEY: 'test-key',
      DATABASE_URL: `file:${file}`,
    };
    const first = startParley(env);
    await first.ready();
    await first.kill9();
    const db = new DatabaseSync(file);
    const stale = {
      sessionId: 'gone',
      sequence: 7,
      shardId: 0,
      shardCount: 1,
      resumeURL: `${dc.apiRoot.replace(/^http/, 'ws').replace(/\/api$/, '')}/gateway`,
    };
    db.prepare(`UPDATE "ReceiverLease" SET "state" = ? WHERE "receiver" = 'discord'`).run(JSON.stringify(stale));
    db.close();

    const second = startParley(env);
    await second.ready();
    await waitFor(() => dc.gateway.connected, 'connected again');
    expect(dc.gateway.resumes, 'tried the stored session').toBe(1);
    expect(dc.gateway.identifies, 'then a new session').toBe(2);
    const person = dc.user('Alice');
    const dm = dc.dm(person);
    dc.say(person, dm, 'hello');
    await waitFor(() => dc.botMessages(dm)[0]?.versions.at(-1) === 'answer to hello', 'the answer', 20_000);
  });
});
