// Builds a real Parley core for tests: a temporary SQLite file, the fake model server, the
// in-memory adapter (or others), and the app wired exactly as src/main.ts wires it.
import { registryTool, type Tool } from '../../src/framework/tool.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { type ModelsInput, resolveModels } from '../../src/config/models.ts';
import type { ChannelAdapter } from '../../src/core/types.ts';
import { silentLogger } from '../../src/log.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { FakeModelServer } from '../fakes/model-server.ts';
import { MemoryAdapter } from '../fakes/memory-adapter.ts';

export function tempDir(prefix = 'parley-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testConfig(databaseUrl: string, modelUrl: string | undefined, env: Record<string, string> = {}): Config {
  return loadConfig(
    {
      DATABASE_URL: databaseUrl,
      ...(modelUrl ? { OPENAI_BASE_URL: modelUrl, OPENAI_MODEL: 'fake-model', OPENAI_API_KEY: 'test-key' } : {}),
      OPENAI_MAX_RETRIES: '2',
      PARLEY_LOG_LEVEL: 'silent',
      ...env,
    },
    process.cwd(),
  );
}

export interface HarnessOptions extends Partial<Omit<AppOptions, 'config' | 'store' | 'adapters' | 'log'>> {
  env?: Record<string, string>;
  adapters?: ChannelAdapter[];
  /** Reuse a database file (a "restarted process"). */
  dbFile?: string;
  /** Use this database instead of a SQLite file (e.g. postgresql://...). */
  databaseUrl?: string;
  model?: FakeModelServer;
  noModel?: boolean;
  /** A `models:` block as parley.config.yaml has it, resolved as at start (beside the fake model as "default"). */
  models?: ModelsInput;
  /** A project's tools (defineTool from 'parley'), given the store's session memory. */
  userTools?: Tool[];
  start?: boolean;
}

export interface Harness {
  app: App;
  store: Store;
  model: FakeModelServer;
  adapter: MemoryAdapter;
  config: Config;
  dbFile: string;
  /** Stop the app and close the store; keeps the database file and model server. */
  stop(): Promise<void>;
  /** Everything, including the model server and the database folder. */
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const ownDir = options.dbFile ? undefined : tempDir();
  const dbFile = options.dbFile ?? join(ownDir!, 'parley.db');
  const model = options.model ?? (await FakeModelServer.start());
  const config = testConfig(options.databaseUrl ?? `file:${dbFile}`, options.noModel ? undefined : model.url, options.env);
  if (options.models) {
    const { setup, issues } = resolveModels(options.models, config.model, { ...process.env, ...options.env });
    if (!setup) throw new Error(`models: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    config.models = setup;
  }
  const store = await openStore(config.database);
  const adapter = new MemoryAdapter();
  const adapters = options.adapters ?? [adapter];
  const app = createApp({
    config,
    store,
    adapters,
    log: silentLogger,
    sweepIntervalMs: options.sweepIntervalMs ?? 200,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.tools || options.userTools
      ? { tools: [...(options.tools ?? []), ...(options.userTools ?? []).map((tool) => registryTool(tool, store.memory))] }
      : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...(options.sections ? { sections: options.sections } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.llm ? { llm: options.llm } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  if (options.start !== false) await app.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.stop(1_000);
    await store.close();
  };
  const harness: Harness = {
    app,
    store,
    model,
    adapter,
    config,
    dbFile,
    stop,
    async close() {
      await stop();
      if (!options.model) await model.close();
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
  cleanups.push(() => harness.close());
  return harness;
}

/** Close every harness created so far (call from afterEach). */
export async function closeAll(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch(() => {});
}

/** Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws). */
export async function waitFor<T>(check: () => T | Promise<T>, what = 'condition', timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Waits until the session has no unfinished turn and an empty mailbox; returns its turns. */
export async function settled(store: Store, sessionKey: string, timeoutMs = 10_000) {
  return waitFor(
    async () => {
      const session = await store.sessions.getByKey(sessionKey);
      if (!session) return undefined;
      if (await store.inbound.hasQueued(session.id)) return undefined;
      const active = await store.turns.active(session.id);
      if (active) return undefined;
      return store.turns.list({ sessionId: session.id });
    },
    `session ${sessionKey} to settle`,
    timeoutMs,
  );
}
