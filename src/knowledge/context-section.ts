// Automatic knowledge context: when pages match the user's message well enough (contextOptions:
// their match at or above PARLEY_KNOWLEDGE_MIN_MATCH), their best sections go with that message (a turn section of the agent), within a
// token budget, with the instruction to cite page slugs.
import type { ContextSection } from '../agent/agent.ts';
import { estimateTokens, truncateToTokens } from '../agent/tokens.ts';
import type { Config } from '../config/config.ts';
import { contextOptions } from './context-options.ts';
import type { KnowledgeBase, SectionHit } from './knowledge-base.ts';
import { CITE_HINT } from './tools.ts';

const HEADER = [
  '<knowledge>',
  `Sections of the knowledge base that match the message above, best first. Use them when they answer it and say so: ${CITE_HINT} If they do not answer it, ignore them; search_knowledge can look further.`,
].join('\n');
const FOOTER = '</knowledge>';
/** A section cut shorter than this is left out rather than shown as a stub. */
const MIN_SECTION_TOKENS = 80;

/** The <knowledge> block for `hits` within `budgetTokens`, or undefined when nothing fits. */
export function knowledgeBlock(hits: SectionHit[], budgetTokens: number): string | undefined {
  let remaining = budgetTokens - estimateTokens(HEADER) - estimateTokens(FOOTER);
  const parts: string[] = [];
  for (const hit of hits) {
    const heading = `### [${hit.slug}] ${hit.title} › ${hit.section}`;
    const available = remaining - estimateTokens(heading) - 2;
    if (available < MIN_SECTION_TOKENS) break;
    const body = truncateToTokens(hit.markdown, available);
    parts.push(`${heading}\n${body}`);
    remaining -= estimateTokens(heading) + estimateTokens(body) + 2;
  }
  return parts.length ? [HEADER, ...parts, FOOTER].join('\n\n') : undefined;
}

export function knowledgeContextSection(kb: KnowledgeBase, settings: Config['knowledge']): ContextSection {
  let cached: { key: string; block: Promise<string | undefined> } | undefined;
  const options = contextOptions(settings);
  return async ({ turn, userText }) => {
    if (!options || !userText.trim()) return undefined;
    const key = `${turn.id}\u0000${userText}`;
    if (cached?.key !== key) {
      const block = kb.relevantSections(userText, options).then((hits) => knowledgeBlock(hits, settings.contextTokens));
      cached = { key, block };
      // The agent logs the failure; the next round tries again.
      block.catch(() => {
        if (cached?.block === block) cached = undefined;
      });
    }
    return cached.block;
  };
}
