// `npm start` with the Feishu channel as a child process, pointed at the fake open platform.
import { join } from 'node:path';
import type { FakeFeishu } from '../fakes/feishu/index.ts';
import type { FakeModelServer } from '../fakes/model-server.ts';
import { startParley, type ParleyProcess } from '../helpers/child.ts';
import { waitFor } from '../helpers/harness.ts';
import type { Mode } from './helpers.ts';

export function feishuEnv(
  fs: FakeFeishu,
  model: FakeModelServer,
  mode: Mode,
  dir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    FEISHU_APP_ID: fs.appId,
    FEISHU_APP_SECRET: fs.appSecret,
    FEISHU_DOMAIN: fs.baseUrl,
    FEISHU_MODE: mode,
    FEISHU_VERIFICATION_TOKEN: fs.verificationToken,
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_API_KEY: 'test-key',
    DATABASE_URL: `file:${join(dir, 'parley.db')}`,
    ...extra,
  };
}

/** The URL of the one HTTP listener, from the ready block. */
function httpUrlOf(output: string): string {
  const match = /HTTP\s+(http:\/\/\S+)/.exec(output);
  if (!match) throw new Error(`no HTTP line in the ready block:\n${output}`);
  return match[1]!;
}

/**
 * Starts Parley and points the fake's pushes at it: in webhook mode at `/feishu/events` on the
 * process's one HTTP listener, in long-connection mode once the new connection is up.
 */
export async function startFeishuParley(fs: FakeFeishu, mode: Mode, env: Record<string, string>): Promise<ParleyProcess> {
  const connections = fs.wsConnections;
  const parley = startParley(env);
  await parley.ready();
  if (mode === 'webhook') fs.webhookUrl = `${httpUrlOf(parley.output())}/feishu/events`;
  else await waitFor(() => fs.wsConnections > connections && fs.wsConnected, 'the long connection', 20_000);
  return parley;
}
