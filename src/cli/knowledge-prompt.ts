// Which search hits the automatic context would put into the prompt of a message like the query:
// `parley knowledge search` marks them (a column, a `prompt` field in JSON), so an admin can see
// what the bot would be given and tune PARLEY_KNOWLEDGE_MIN_MATCH with the `match` column.
import type { Config } from '../config/config.ts';
import { contextOptions } from '../knowledge/context-options.ts';
import type { PageHit } from '../knowledge/knowledge-base.ts';
import type { KnowledgeSearcher } from '../knowledge/knowledge-searcher.ts';

export type MarkedHit<H extends PageHit = PageHit> = H & { prompt: boolean };

/** `hits` with `prompt`: whether their page is among those the automatic context takes for `query`. */
export async function markPromptHits<H extends PageHit>(
  searcher: Pick<KnowledgeSearcher, 'relevantSections'>,
  settings: Config['knowledge'],
  query: string,
  hits: H[],
): Promise<MarkedHit<H>[]> {
  const options = contextOptions(settings);
  const chosen = new Set(options ? (await searcher.relevantSections(query, options)).map((section) => section.slug) : []);
  return hits.map((hit) => ({ ...hit, prompt: chosen.has(hit.slug) }));
}

/** The line under the table that says what "prompt" means with this configuration. */
export function promptLegend(settings: Config['knowledge']): string {
  const options = contextOptions(settings);
  if (!options) return 'prompt: none, the automatic context is off (PARLEY_KNOWLEDGE_AUTO_CONTEXT, PARLEY_KNOWLEDGE_MAX_SECTIONS).';
  const conditions = [
    ...(options.minMatch !== undefined ? [`match >= ${options.minMatch} (PARLEY_KNOWLEDGE_MIN_MATCH)`] : []),
    ...(options.minScore !== undefined ? [`score >= ${options.minScore} (PARLEY_KNOWLEDGE_MIN_SCORE)`] : []),
  ].join(' and ');
  return `prompt: pages the automatic context would add to this message: ${conditions}, up to ${options.limit} section${options.limit === 1 ? '' : 's'}; match = best section's score / the best this question can score (0-1, comparable across languages and lengths).`;
}
