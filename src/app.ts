// Assembles the channel-neutral core (agent, tools, approvals, gateway) over an open store and a
// set of adapters. src/main.ts calls this with the configured adapters; tests call it with fakes.
import { Agent, type ContextSection } from './agent/agent.ts';
import { ToolRegistry, type AnyTool } from './agent/tools.ts';
import { createApprovalGate } from './approvals/gate.ts';
import { approvalHooks } from './approvals/hook.ts';
import { ApprovalService } from './approvals/service.ts';
import { Heartbeat, heartbeatMsFromEnv, LEASE_BEATS } from './cluster/heartbeat.ts';
import { reaper } from './cluster/reaper.ts';
import { exclusiveReceivers } from './cluster/receivers.ts';
import { localWakeups, type Wakeups } from './cluster/wakeups.ts';
import { PgWakeups } from './cluster/wakeups-pg.ts';
import type { Config } from './config/config.ts';
import type { ChannelAdapter } from './core/types.ts';
import { PluginHost } from './framework/plugin-host.ts';
import type { Plugin } from './framework/plugin.ts';
import { Gateway } from './gateway/gateway.ts';
import { SessionScheduler, type SchedulerOptions } from './gateway/scheduler.ts';
import { ModelHealth } from './llm/model-health.ts';
import type { ModelRouter } from './llm/model-router.ts';
import { modelFailureCause } from './llm/model-state.ts';
import { modelHealths, modelRouter } from './llm/models-runtime.ts';
import type { LlmClient } from './llm/types.ts';
import { knowledgeContextSection } from './knowledge/context-section.ts';
import { knowledgeIndexFile } from './knowledge/index-location.ts';
import { KnowledgeBase } from './knowledge/knowledge-base.ts';
import { embeddingSettings } from './knowledge/search/embedder.ts';
import { createKnowledgeTools } from './knowledge/tools.ts';
import type { Logger } from './log.ts';
import { createMemoryTools, memoryContextSection } from './memory/memory.ts';
import type { Store } from './store/store.ts';
import { storeJournal } from './store-journal.ts';
import { dataDirFor, Media } from './media/index.ts';
import { createHttpRequestTool } from './tools/http-request.ts';

export interface AppOptions {
  config: Config;
  store: Store;
  adapters: ChannelAdapter[];
  log: Logger;
  /** Defaults to a router over `config.models` (none when no model is configured). */
  llm?: LlmClient;
  /** Tools added to the built-in ones. */
  tools?: AnyTool[];
  /** A project's plugins (parley.config): hooks, context sections, commands. */
  plugins?: readonly Plugin[];
  sections?: ContextSection[];
  scheduler?: Omit<SchedulerOptions, 'store' | 'log' | 'wakeups'>;
  sweepIntervalMs?: number;
  /** The process heartbeat's interval (PARLEY_HEARTBEAT_MS, 2 s by default). */
  heartbeatMs?: number;
  /** The folder of per-install files (the media cache is its media/ folder); beside the database by default. */
  dataDir?: string;
  /** What is known of each configured model, by name (src/main.ts makes them first, for /readyz); made otherwise. */
  modelHealths?: Map<string, ModelHealth>;
  now?: () => Date;
}

export interface App {
  gateway: Gateway;
  agent?: Agent;
  approvals: ApprovalService;
  scheduler: SessionScheduler;
  /** This process's one heartbeat: register per-beat work with onBeat. */
  heartbeat: Heartbeat;
  wakeups: Wakeups;
  tools: ToolRegistry;
  /** The default model's health. */
  modelHealth: ModelHealth;
  /** Every configured model's health, by name. */
  modelHealths: Map<string, ModelHealth>;
  /** Picks each request's model (absent when `llm` was given or no model is configured). */
  models?: ModelRouter;
  llm?: LlmClient;
  knowledge: KnowledgeBase;
  /** The media intake and cache (attachments read for the model). */
  media: Media;
  start(): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

function builtinTools(config: Config, store: Store, knowledge: KnowledgeBase): AnyTool[] {
  return [
    ...createMemoryTools(store.memory),
    ...createKnowledgeTools(knowledge),
    createHttpRequestTool({ allowPrivateAddresses: config.http.allowPrivateAddresses }),
  ];
}

/** Approvals created through this repo wake whoever expires approvals (a timer to the earliest). */
function announcedApprovals(store: Store, wakeups: Wakeups): Pick<Store['approvals'], 'create' | 'forTurn'> {
  return {
    forTurn: (turnId) => store.approvals.forTurn(turnId),
    async create(input) {
      const approval = await store.approvals.create(input);
      await wakeups.publish({ kind: 'approval', expiresAt: approval.expiresAt.getTime() });
      return approval;
    },
  };
}

/** Whether another connection wrote to the SQLite file since the last call (never on the first). */
function changedElsewhere(store: Store): () => Promise<boolean> {
  let last: number | undefined;
  return async () => {
    try {
      const version = await store.processes.dataVersion();
      const changed = last !== undefined && version !== last;
      last = version;
      return changed;
    } catch {
      // The database not answering is the heartbeat's to report.
      return false;
    }
  };
}

export function createApp(options: AppOptions): App {
  const { config, store, log } = options;
  const healths = options.modelHealths ?? modelHealths(config.models, log);
  const defaultName = config.models.defaultModel;
  const modelHealth = (defaultName && healths.get(defaultName)) || new ModelHealth({ config: config.model, log });
  // Every request tells its model's health how it went (the ready block and /readyz read them).
  const router = options.llm
    ? undefined
    : modelRouter({
        setup: config.models,
        healths,
        chatChoice: async (channel, chatId) => (await store.chatModels.get(channel, chatId))?.model,
        log,
      });
  const plugins = new PluginHost(options.plugins ?? [], { log: log.child({ component: 'plugins' }), memory: store.memory });
  const routed = options.llm ? modelHealth.observe(options.llm) : router;
  const media = new Media({ config, dataDir: options.dataDir ?? dataDirFor(config.database), adapters: options.adapters, log });
  // The media client sends the conversation's cached images; the plugins observe what is sent.
  const llm = routed && plugins.observeModel(media.client(routed));
  const failureCause = (error: unknown) =>
    router && config.models.models.length > 1
      ? router.failureCause(error)
      : modelFailureCause(error, config.models.models[0]?.config ?? config.model);
  const knowledge = new KnowledgeBase({
    repo: store.knowledge,
    indexFile: knowledgeIndexFile(config.database),
    log,
    embeddings: embeddingSettings(config),
  });
  const tools = new ToolRegistry([...builtinTools(config, store, knowledge), ...(options.tools ?? [])], { log });
  const wakeups =
    store.target.provider === 'postgresql'
      ? new PgWakeups({ url: store.target.url, notify: (channel, payload) => store.processes.notify(channel, payload), log })
      : localWakeups({ changedElsewhere: changedElsewhere(store) });
  const gate = createApprovalGate({
    ttlMs: config.approvals.ttlMs,
    overrides: config.approvals.overrides,
    isGranted: (sessionId, toolName) => store.grants.has(sessionId, toolName),
  });
  // A lease lasts LEASE_BEATS heartbeats; a shorter lease asked for (tests) makes the beat faster.
  const beatMs = options.heartbeatMs ?? heartbeatMsFromEnv();
  const leaseMs = options.scheduler?.leaseMs ?? beatMs * LEASE_BEATS;
  const scheduler = new SessionScheduler({ store, log, wakeups, ...options.scheduler, leaseMs });
  const agent = llm
    ? new Agent({
        // A turn's end releases its session's lease in the same write.
        journal: storeJournal(store, { owner: scheduler.owner, released: (sessionId, state) => scheduler.releasedWith(sessionId, state) }),
        llm,
        tools,
        hooks: plugins.toolHooks(approvalHooks({ gate, approvals: announcedApprovals(store, wakeups), now: options.now })),
        settings: config.agent,
        prompt: { ...(config.bot.prompt ? { base: config.bot.prompt } : {}), botName: config.bot.name },
        failureNote: { admins: config.approvals.admins, cause: failureCause },
        sections: [memoryContextSection(store.memory), ...(options.sections ?? [])],
        turnSections: [knowledgeContextSection(knowledge, config.knowledge), ...plugins.turnSections()],
        onTurnEnd: (turn) => plugins.turnEnded(turn),
        log,
        now: options.now,
      })
    : undefined;
  const heartbeat = new Heartbeat({
    owner: scheduler.owner,
    processes: store.processes,
    renewLeases: (now) => scheduler.renewLeases(now),
    onFailed: (now) => scheduler.leaseLapsed(now),
    intervalMs: Math.min(beatMs, Math.floor(leaseMs / LEASE_BEATS)),
    channels: () => options.adapters.map((adapter) => adapter.id),
    log,
  });
  heartbeat.onBeat(reaper({ store, wakeups, log, staleMs: leaseMs }));
  // Long polling, gateways, long connections: one process at a time, under a lease renewed on the beat.
  const receivers = exclusiveReceivers({ adapters: options.adapters, store, heartbeat, leaseMs, log });
  // Not awaited: a listener that stopped answering must not hold up the lease renewals.
  heartbeat.onBeat(async () => void wakeups.check());
  // Decisions resume turns through the gateway, which is built next with the approvals in hand;
  // a decision can only arrive once the gateway has started.
  const approvals = new ApprovalService({
    store,
    adapters: new Map(options.adapters.map((a) => [a.id, a])),
    admins: config.approvals.admins,
    log,
    resume: (turnId) => gateway.resume(turnId),
    now: options.now,
  });
  const gateway = new Gateway({
    store,
    agent,
    adapters: options.adapters,
    scheduler,
    log,
    botName: config.bot.name,
    groupSession: config.bot.groupSession,
    locale: config.bot.locale,
    approvals,
    ...(plugins.size > 0 ? { plugins } : {}),
    wakeups,
    sweepIntervalMs: options.sweepIntervalMs,
    limits: { settings: config.limits, admins: config.approvals.admins },
    media,
    ...(router ? { models: { choices: router, admins: config.approvals.admins } } : {}),
  });
  return {
    gateway,
    agent,
    approvals,
    scheduler,
    heartbeat,
    wakeups,
    tools,
    llm,
    modelHealth,
    modelHealths: healths,
    ...(router ? { models: router } : {}),
    knowledge,
    media,
    async start() {
      media.start();
      await wakeups.start();
      await heartbeat.start();
      await gateway.start();
      await receivers.start();
      // Brings the search index up to date (builds it on first start) without delaying start-up;
      // searches meanwhile wait for it.
      knowledge.sync().catch((error: unknown) => log.warn({ err: error }, 'could not update the knowledge index'));
    },
    async stop(graceMs = 3_000) {
      await receivers.stop();
      await gateway.stop(graceMs);
      await approvals.settled();
      await heartbeat.stop();
      // Turns interrupted by the stop are left for another process: tell them (no-op alone).
      await wakeups.publish({ kind: 'gone', owners: [scheduler.owner] });
      await wakeups.stop();
      await knowledge.close();
      media.stop();
    },
  };
}
