// Which pages the automatic context takes, from the configuration: the same for the chat (context-
// section.ts) and for `parley knowledge search`, which marks the hits that would go into the prompt.
import type { Config } from '../config/config.ts';
import type { ContextThreshold } from './knowledge-search.ts';

export type ContextOptions = { limit: number } & ContextThreshold;

/** The options for KnowledgeBase.relevantSections; undefined when the automatic context is off. */
export function contextOptions(settings: Config['knowledge']): ContextOptions | undefined {
  if (!settings.autoContext || settings.maxSections <= 0) return undefined;
  return {
    limit: settings.maxSections,
    ...(settings.minMatch !== undefined ? { minMatch: settings.minMatch } : {}),
    ...(settings.minScore !== undefined ? { minScore: settings.minScore } : {}),
  };
}
