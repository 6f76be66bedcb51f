// Shared set-up for the Feishu suites: the fake open platform, the real adapter (real Lark SDK)
// configured from environment variables in webhook or long-connection mode, and the real core.
import { z } from 'zod';
import { FeishuAdapter } from '../../adapters/feishu/adapter.ts';
import { loadFeishuConfig } from '../../adapters/feishu/config.ts';
import { defineTool, type AnyTool } from '../../src/agent/tools.ts';
import type { InboundSink } from '../../src/core/types.ts';
import { FakeFeishu, type FeishuChat, type StoredMessage } from '../fakes/feishu/index.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { HttpHost } from '../../src/http/host.ts';
import { silentLogger } from '../../src/log.ts';
import { createHarness, waitFor, type Harness } from '../helpers/harness.ts';
import { RecordingLogger } from '../telegram/helpers.ts';

export type Mode = 'webhook' | 'ws';

export interface FeishuSetup {
  fs: FakeFeishu;
  adapter: FeishuAdapter;
  h: Harness;
  log: RecordingLogger;
  close(): Promise<void>;
}

const open: (() => Promise<void>)[] = [];

export async function startFeishu(
  mode: Mode,
  options: { env?: Record<string, string>; tools?: AnyTool[]; coreEnv?: Record<string, string>; databaseUrl?: string } = {},
): Promise<FeishuSetup> {
  const fs = await FakeFeishu.start();
  if (options.env?.FEISHU_ENCRYPT_KEY) fs.encryptKey = options.env.FEISHU_ENCRYPT_KEY;
  const model = await FakeModelServer.start();
  const log = new RecordingLogger();
  const config = loadFeishuConfig({
    FEISHU_APP_ID: fs.appId,
    FEISHU_APP_SECRET: fs.appSecret,
    FEISHU_DOMAIN: fs.baseUrl,
    FEISHU_MODE: mode,
    FEISHU_VERIFICATION_TOKEN: fs.verificationToken,
    FEISHU_EDIT_INTERVAL_PRIVATE: '40ms',
    FEISHU_EDIT_INTERVAL_GROUP: '60ms',
    ...options.env,
  });
  if (!config) throw new Error('feishu config expected');
  const adapter = new FeishuAdapter({ config, log });
  // As npm start wires it: the one HTTP host, the adapter's routes on it, then the app.
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: [adapter.id], phase: () => 'started' },
  });
  adapter.routes(host);
  await host.listen();
  const h = await createHarness({
    adapters: [adapter],
    model,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.coreEnv ? { env: options.coreEnv } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
  });
  if (mode === 'webhook') fs.webhookUrl = `${host.url}/feishu/events`;
  else await waitFor(() => fs.wsConnected, 'the long connection');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await h.close();
    await host.close();
    await model.close();
    await fs.close();
  };
  open.push(close);
  return { fs, adapter, h, log, close };
}

/**
 * The adapter alone (real SDK, webhook mode, started) with `sink` standing in for the core: for
 * what reaches the core and what the callbacks answer, without a database or a model.
 */
export async function startBare(
  sink: InboundSink,
  options: { clickDeadlineMs?: number } = {},
): Promise<{ fs: FakeFeishu; adapter: FeishuAdapter; log: RecordingLogger }> {
  const fs = await FakeFeishu.start();
  const config = loadFeishuConfig({
    FEISHU_APP_ID: fs.appId,
    FEISHU_APP_SECRET: fs.appSecret,
    FEISHU_DOMAIN: fs.baseUrl,
    FEISHU_MODE: 'webhook',
    FEISHU_VERIFICATION_TOKEN: fs.verificationToken,
  })!;
  const log = new RecordingLogger();
  const adapter = new FeishuAdapter({ config, log, ...options });
  const host = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    log: silentLogger,
    readiness: { pingDatabase: async () => {}, channels: ['feishu'], phase: () => 'started' },
  });
  adapter.routes(host);
  await host.listen();
  await adapter.start(sink);
  fs.webhookUrl = `${host.url}/feishu/events`;
  open.push(async () => {
    await adapter.stop();
    await host.close();
    await fs.close();
  });
  return { fs, adapter, log };
}

export async function closeFeishu(): Promise<void> {
  while (open.length) await open.pop()!().catch(() => {});
}

export function botMessages(fs: FakeFeishu, chat: FeishuChat, count = 1): Promise<StoredMessage[]> {
  return waitFor(() => {
    const messages = fs.botMessages(chat);
    return messages.length >= count ? messages : undefined;
  }, `${count} bot message(s) in ${chat.id}`);
}

export const text = FakeFeishu.textOf;

export function deployTool(deployed: string[]): AnyTool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service to production',
    parameters: z.object({ service: z.string() }),
    approval: 'always',
    describe: ({ service }) => `deploy ${service} to production`,
    async execute({ service }) {
      deployed.push(service);
      return `deployed ${service}`;
    },
  }) as AnyTool;
}
