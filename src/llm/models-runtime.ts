// The configured models at run time: one health per model (checked at start, told of every
// request; the ready block and /readyz read them) and one router over their clients.
import type { ModelsSetup } from '../config/models.ts';
import type { CoreLogger } from '../core/types.ts';
import { createLlmClient } from './client.ts';
import { ModelHealth } from './model-health.ts';
import { ModelRouter } from './model-router.ts';

/** One health per configured model, by name, in configuration order. */
export function modelHealths(setup: ModelsSetup, log: CoreLogger): Map<string, ModelHealth> {
  return new Map(setup.models.map((named) => [named.name, new ModelHealth({ config: named.config, log })]));
}

export interface RouterInput {
  setup: ModelsSetup;
  healths: ReadonlyMap<string, ModelHealth>;
  chatChoice?: (channel: string, chatId: string) => Promise<string | undefined>;
  log: CoreLogger;
}

/** A router over one client per model (each telling its own health); undefined when no model is configured. */
export function modelRouter({ setup, healths, chatChoice, log }: RouterInput): ModelRouter | undefined {
  if (setup.models.length === 0) return undefined;
  const clients = new Map(
    setup.models.map((named) => {
      const { config } = named;
      const client = createLlmClient({
        baseUrl: config.baseUrl,
        apiKey: config.apiKey,
        model: config.model,
        timeoutMs: config.timeoutMs,
        maxRetries: config.maxRetries,
        retryBudgetMs: config.retryBudgetMs,
        temperature: config.temperature,
        streamUsage: config.streamUsage,
        onHttpError: (status) =>
          log.warn({ status, model: named.name }, `model ${named.name} answered ${status}; retrying if attempts remain`),
      });
      const health = healths.get(named.name);
      return [named.name, health ? health.observe(client) : client] as const;
    }),
  );
  return new ModelRouter({ setup, clients, ...(chatChoice ? { chatChoice } : {}), log });
}
