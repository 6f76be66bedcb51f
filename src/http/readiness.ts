// /readyz: ready only when the database answers a ping (within a bound) and every channel has
// started (and the process is not stopping). The report says what is not ready, without details
// that could leak (no URLs, no error texts). With a model configured, it also says whether the
// model answers (each model, when several are configured): one that does not makes the report
// `degraded`, not unready.
export type ChannelPhase = 'starting' | 'started' | 'stopping';

export interface ReadinessProbe {
  /** Resolves when the database answers a trivial query. */
  pingDatabase(): Promise<void>;
  /** The configured channels' names. */
  readonly channels: readonly string[];
  /** 'started' once every channel started; 'stopping' from the shutdown signal on. */
  phase(): ChannelPhase;
  /** What is known of the default model (see src/llm/model-health.ts), when one is configured. */
  model?(): ModelReadiness;
  /** What is known of every configured model, by name (when several are configured). */
  models?(): Record<string, ModelReadiness>;
}

export interface ModelReadiness {
  answering: boolean;
  /** "gpt-x at https://...: not reachable: ECONNREFUSED". */
  detail: string;
}

export interface ReadinessReport {
  ready: boolean;
  database: 'ok' | 'unreachable' | 'timeout';
  channels: Record<string, ChannelPhase>;
  /** One short line per thing that is not ready (empty when ready). */
  notReady: string[];
  /**
   * The model, when the probe knows it. A model that does not answer leaves the process ready
   * (200: it still takes webhooks, button clicks and /stop, and answers once the model is back)
   * but `degraded`.
   */
  model?: ModelReadiness;
  /** Every configured model by name, when several are: one that does not answer makes the report `degraded` too. */
  models?: Record<string, ModelReadiness>;
  degraded?: boolean;
}

const TIMED_OUT = Symbol('timed out');

async function ping(probe: ReadinessProbe, timeoutMs: number): Promise<ReadinessReport['database']> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([probe.pingDatabase().then(() => 'ok' as const), timeout]);
    return outcome === TIMED_OUT ? 'timeout' : outcome;
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(probe: ReadinessProbe, timeoutMs = 2_000): Promise<ReadinessReport> {
  const database = await ping(probe, timeoutMs);
  const phase = probe.phase();
  const channels = Object.fromEntries(probe.channels.map((name) => [name, phase]));
  const notReady: string[] = [];
  if (database === 'unreachable') notReady.push('database: does not answer');
  if (database === 'timeout') notReady.push(`database: no answer within ${timeoutMs} ms`);
  if (phase !== 'started') {
    notReady.push(...(probe.channels.length ? probe.channels.map((name) => `channel ${name}: ${phase}`) : [`parley: ${phase}`]));
  }
  const model = probe.model?.();
  const models = probe.models?.();
  const answering = [model, ...Object.values(models ?? {})].every((m) => m === undefined || m.answering);
  return {
    ready: notReady.length === 0,
    database,
    channels,
    notReady,
    ...(model ? { model } : {}),
    ...(models ? { models } : {}),
    ...(model || models ? { degraded: !answering } : {}),
  };
}
