// `npm start` and `npx parley start`: the one place that wires config → store → adapters → gateway,
// with the project's parley.config (tools, plugins) from the working directory.
import { basename, dirname, resolve } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { discordChannel } from '../adapters/discord/index.ts';
import { feishuChannel } from '../adapters/feishu/index.ts';
import { telegramChannel } from '../adapters/telegram/index.ts';
import { webChannel } from '../adapters/web/index.ts';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config/config.ts';
import { ENV_MODEL_NAME } from './config/models.ts';
import { loadFileConfig } from './config-file/load.ts';
import type { FileConfig } from './config-file/schema.ts';
import { COMMANDS } from './core/commands.ts';
import { ConfigError } from './core/env.ts';
import { ParleyError } from './core/errors.ts';
import type { ChannelAdapter, ChannelFactory } from './core/types.ts';
import type { ParleyConfig } from './framework/config.ts';
import { withProjectModelsAndPrompt } from './framework/models-and-prompt.ts';
import { loadProjectConfig, ProjectConfigError } from './framework/load.ts';
import { pluginCommands } from './framework/plugin-host.ts';
import { registryTool } from './framework/tool.ts';
import { reclaimStaleLeases, thisProcess } from './gateway/lease-owner.ts';
import { httpConfigFromEnv, type HttpConfig } from './http/config.ts';
import { HttpHost } from './http/host.ts';
import type { ChannelPhase, ModelReadiness } from './http/readiness.ts';
import type { ModelHealth } from './llm/model-health.ts';
import { describeModelState, type ModelState, modelStateFix } from './llm/model-state.ts';
import { modelHealths } from './llm/models-runtime.ts';
import { createLogger, type Logger } from './log.ts';
import type { McpManager, McpServerStatus } from './mcp/manager.ts';
import { armHardExit, boundStop, runSteps, type ShutdownStep } from './shutdown.ts';
import { redactUrl, StoreError } from './store/errors.ts';
import { acquireRuntimeLock, type RuntimeLock } from './store/runtime-lock.ts';
import { dumpStatementsOnSignal } from './store/statement-dump.ts';
import { openStore, type Store } from './store/store.ts';

/** Every channel Parley knows; each decides from the environment whether it runs. */
const CHANNELS: ChannelFactory[] = [telegramChannel, discordChannel, feishuChannel, webChannel];

// Shutdown budget: whatever does not answer (model, platform, database), the process ends within
// HARD_EXIT_MS of the signal. Turns still running after the grace are interrupted at their next
// checkpoint and continued by the next start.
const SHUTDOWN_GRACE_MS = 3_000;
const ADAPTER_STOP_MS = 1_500;
// The app: the grace, 1.5 s for interrupted turns to wind down (scheduler), then the adapters.
const APP_STOP_MS = 6_500;
const STORE_CLOSE_MS = 750;
const MCP_STOP_MS = 1_000;
const HARD_EXIT_MS = 8_500;

function fail(message: string): never {
  process.stderr.write(`parley: ${message}\n`);
  process.exit(1);
}

function describeDatabase(config: Config, store: Store): string {
  const target = config.database;
  const where = target.provider === 'sqlite' ? `SQLite ${target.file}` : `PostgreSQL ${redactUrl(target.url)}`;
  const applied = store.migrations.applied.length;
  return `${where} (${applied ? `${applied} migration(s) applied now` : 'schema up to date'})`;
}

function describeModels(config: Config, healths: Map<string, ModelHealth>): string[] {
  if (healths.size === 0) {
    return [
      'not configured: I will start, but cannot answer yet.',
      'Set OPENAI_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY) in .env (see .env.example), then restart.',
    ];
  }
  const { defaultModel, fallback, channels } = config.models;
  const several = healths.size > 1;
  const lines = [...healths].flatMap(([name, health]) => {
    const state = health.state;
    // The fixes name the OPENAI_* variables: they apply to the model those configure.
    const fix = name === ENV_MODEL_NAME ? modelStateFix(state) : undefined;
    const role = [name === defaultModel ? 'default' : undefined, fallback.includes(name) ? 'fallback' : undefined]
      .filter(Boolean)
      .join(', ');
    const label = several ? `${name}${role ? ` (${role})` : ''}: ` : '';
    return [`${label}${health.where}: ${describeModelState(state)}`, ...(fix ? [fix] : [])];
  });
  const routed = Object.entries(channels).map(([channel, name]) => `${channel} → ${name}`);
  return routed.length ? [...lines, `per channel: ${routed.join(', ')}`] : lines;
}

function modelReadiness(state: ModelState): ModelReadiness {
  return { answering: state.kind === 'answering' || state.kind === 'reachable', detail: describeModelState(state) };
}

function describeMcp(server: McpServerStatus): string {
  const tools = server.tools.filter((tool) => !tool.hidden).length;
  if (server.state === 'connected') return `${server.name}: ${server.connectedVia ?? server.transport}, ${tools} tool(s)`;
  return `${server.name}: ${server.transport}, ${server.state === 'disabled' ? 'disabled' : `not connected yet (${server.error ?? 'still starting'})`}`;
}

function readyBlock(
  project: { config: ParleyConfig; file?: string },
  config: Config,
  healths: Map<string, ModelHealth>,
  store: Store,
  adapters: ChannelAdapter[],
  host: HttpHost,
  mcp: McpServerStatus[],
): string {
  const label = (name: string) => `  ${name.padEnd(10)}`;
  const lines = [config.bot.name === 'Parley' ? 'Parley is running.' : `${config.bot.name} (Parley) is running.`];
  const model = describeModels(config, healths);
  lines.push(label('Model') + model[0], ...model.slice(1).map((l) => ' '.repeat(12) + l));
  lines.push(label('Database') + describeDatabase(config, store));
  lines.push(`${label('HTTP')}${host.url} (/healthz, /readyz)`);
  if (adapters.length === 0) {
    lines.push(`${label('Channels')}none configured (set TELEGRAM_BOT_TOKEN, or enable the web console)`);
  } else {
    for (const [i, adapter] of adapters.entries()) {
      const details = adapter.describe?.() ?? [adapter.id];
      lines.push(label(i === 0 ? 'Channels' : '') + details[0], ...details.slice(1).map((l) => ' '.repeat(12) + l));
    }
  }
  for (const [i, server] of mcp.entries()) lines.push(label(i === 0 ? 'MCP' : '') + describeMcp(server));
  if (project.file) {
    const { tools, plugins } = project.config;
    lines.push(`${label('Project')}${basename(project.file)}: ${tools.length} tool(s), ${plugins.length} plugin(s)`);
  }
  lines.push('Press Ctrl-C to stop.');
  return lines.join('\n');
}

/** Where channels keep small per-install files: beside the SQLite database, ./data otherwise. */
function dataDirOf(config: Config): string {
  const db = config.database;
  return db.provider === 'sqlite' && db.file !== ':memory:' ? dirname(db.file) : resolve('data');
}

/** PARLEY_ADMINS plus the ids each channel vouches for (the web console's operator). */
function withChannelAdmins(config: Config, adapters: ChannelAdapter[]): Config {
  const vouched = adapters.flatMap((adapter) => (adapter.admins ?? []).map((id) => `${adapter.id}:${id}`));
  return { ...config, approvals: { ...config.approvals, admins: [...config.approvals.admins, ...vouched] } };
}

async function createAdapters(config: Config, project: ParleyConfig, log: Logger): Promise<ChannelAdapter[]> {
  const adapters: ChannelAdapter[] = [];
  const commands = [...COMMANDS, ...pluginCommands(project.plugins)];
  for (const factory of CHANNELS) {
    const adapter = await factory.fromEnv({
      env: process.env,
      log: log.child({ channel: factory.kind }),
      botName: config.bot.name,
      dataDir: dataDirOf(config),
      commands,
    });
    if (adapter) adapters.push(boundStop(adapter, ADAPTER_STOP_MS));
  }
  return adapters;
}

/** What main uses of the MCP servers; the MCP SDK (and ajv) load only when parley.config.yaml lists one. */
type Mcp = Pick<McpManager, 'start' | 'stop' | 'status'>;
const NO_MCP: Mcp = { start: async () => {}, stop: async () => {}, status: () => [] };

/** The stop steps, in order, each bounded. */
function stopSteps(
  app: { stop(graceMs: number): Promise<void> },
  mcp: Mcp,
  host: HttpHost,
  store: Store,
  lock: RuntimeLock,
  graceMs: number,
): ShutdownStep[] {
  return [
    { what: 'stopping the bot', ms: APP_STOP_MS, run: () => app.stop(graceMs) },
    // After the bot: turns winding down may still call MCP tools.
    { what: 'stopping the MCP servers', ms: MCP_STOP_MS, run: () => mcp.stop() },
    { what: 'closing the HTTP listener', ms: STORE_CLOSE_MS, run: () => host.close() },
    { what: 'closing the database', ms: STORE_CLOSE_MS, run: () => store.close() },
    { what: 'releasing the database lock', ms: STORE_CLOSE_MS, run: async () => lock.release() },
  ];
}

async function main(): Promise<void> {
  loadDotenv({ quiet: true });
  let config: Config;
  let httpConfig: HttpConfig;
  let fileConfig: FileConfig;
  let project: { config: ParleyConfig; file?: string };
  try {
    config = loadConfig();
    httpConfig = httpConfigFromEnv(process.env);
    fileConfig = loadFileConfig(process.env, process.cwd());
    project = await loadProjectConfig(process.cwd());
    // The models of parley.config.yaml or parley.config.ts (with the OPENAI_* one among them)
    // replace the environment's alone; the prompt template may come from either, or the environment.
    config = withProjectModelsAndPrompt(config, fileConfig, project, process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ProjectConfigError) fail(error.message);
    throw error;
  }
  const log = createLogger(config.logLevel);
  if (config.knowledge.deprecation) log.warn(config.knowledge.deprecation);
  let lock: RuntimeLock;
  let store: Store;
  try {
    // Before anything touches the database: a second bot on a SQLite file stops here.
    lock = acquireRuntimeLock(config.database);
    store = await openStore(config.database);
    dumpStatementsOnSignal();
  } catch (error) {
    if (error instanceof StoreError) fail(error.message);
    throw error;
  }

  let adapters: ChannelAdapter[];
  try {
    adapters = await createAdapters(config, project.config, log);
  } catch (error) {
    await store.close();
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }

  // The model's cheap check runs while the rest starts; the ready block waits for it (5 s at most).
  const healths = modelHealths(config.models, log.child({ component: 'model' }));
  const modelChecked = Promise.all([...healths.values()].map((health) => health.check()));
  const defaultHealth = config.models.defaultModel ? healths.get(config.models.defaultModel) : undefined;
  // One listener for everything HTTP; /readyz says ready once the channels started and the database
  // answers, and whether the model answers (`degraded` when it does not).
  let phase: ChannelPhase = 'starting';
  const host = new HttpHost({
    ...httpConfig,
    log: log.child({ component: 'http' }),
    readiness: {
      pingDatabase: () => store.ping(),
      channels: adapters.map((adapter) => adapter.id),
      phase: () => phase,
      ...(defaultHealth ? { model: () => modelReadiness(defaultHealth.state) } : {}),
      ...(healths.size > 1
        ? { models: () => Object.fromEntries([...healths].map(([name, health]) => [name, modelReadiness(health.state)])) }
        : {}),
    },
  });
  for (const adapter of adapters) adapter.routes?.(host);
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({
      config: withChannelAdmins(config, adapters),
      store,
      adapters,
      log,
      modelHealths: healths,
      dataDir: dataDirOf(config),
      tools: project.config.tools.map((tool) => registryTool(tool, store.memory)),
      plugins: project.config.plugins,
    });
  } catch (error) {
    // A project's tool the registry refuses (a name taken by a built-in tool, a schema too large).
    await store.close();
    lock.release();
    fail(`${project.file ? `${basename(project.file)}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
  }
  const mcp: Mcp =
    fileConfig.mcpServers.length === 0
      ? NO_MCP
      : new (await import('./mcp/manager.ts')).McpManager({
          servers: fileConfig.mcpServers,
          registry: app.tools,
          defaultTimeoutMs: config.agent.toolTimeoutMs,
          overrides: config.approvals.overrides,
          log: log.child({ component: 'mcp' }),
        });
  // The admin pages (the web console's) reach the bot through this port (loaded only for them).
  if (adapters.some((adapter) => adapter.useAdmin)) {
    const { createAdminPort } = await import('./admin/port.ts');
    const adminPort = createAdminPort({ config, store, app, mcp: () => mcp.status() });
    for (const adapter of adapters) adapter.useAdmin?.(adminPort);
  }
  const reportStep = (error: unknown, step: ShutdownStep) =>
    log.warn({ err: error }, `${step.what}: ${error instanceof Error ? error.message : String(error)}`);
  try {
    // Leases of a process that is gone would block its sessions until they expire.
    const reclaimed = await reclaimStaleLeases(store, { exclusive: lock.exclusive, self: thisProcess(app.scheduler.owner) });
    if (reclaimed > 0) log.info({ reclaimed }, 'freed session leases left by a stopped process');
    await host.listen();
    // Before the app: turns continued at start may call MCP tools.
    await mcp.start();
    await app.start();
    phase = 'started';
  } catch (error) {
    armHardExit(HARD_EXIT_MS, () => process.exit(1));
    await runSteps(stopSteps(app, mcp, host, store, lock, 0), reportStep);
    fail(error instanceof ParleyError || error instanceof Error ? `could not start: ${error.message}` : String(error));
  }
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write('parley: forced exit\n');
      process.exit(1);
    }
    stopping = true;
    phase = 'stopping';
    process.stdout.write(`\nStopping (${signal}): finishing running turns...\n`);
    armHardExit(HARD_EXIT_MS, () => {
      process.stderr.write(
        `parley: still stopping after ${HARD_EXIT_MS / 1000} s; exiting now (unfinished turns continue on the next start)\n`,
      );
      process.exit(1);
    });
    const clean = await runSteps(stopSteps(app, mcp, host, store, lock, SHUTDOWN_GRACE_MS), reportStep);
    process.stdout.write(
      clean ? 'Stopped.\n' : 'Stopped (not everything answered in time; unfinished turns continue on the next start).\n',
    );
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));
  // Only now say "Press Ctrl-C": without a listener the signal's default action would kill the
  // process at once, and whoever reads the ready block may send it immediately.
  await modelChecked;
  if (stopping) return;
  process.stdout.write(`${readyBlock(project, config, healths, store, adapters, host, mcp.status())}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`parley: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
