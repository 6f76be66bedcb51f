// Second pass: within each page the first pass found, score every section by BM25 (the section
// with its page's title, summary and tags) from the page's stored counts, and rank the pages by
// their best section plus half the next one.
import { FIELD_WEIGHTS, NEXT_SECTION_SHARE, sectionTermScore, type PageField } from './bm25.ts';
import type { ResolvedTerm } from './first-pass.ts';
import type { SearchIndexFile } from './index-file.ts';
import { decodeForward } from './indexed-page.ts';

export interface SectionScore {
  /** Position among the page's sections (see pageSections). */
  position: number;
  score: number;
}

export interface RankedPage {
  doc: number;
  pageId: string;
  slug: string;
  title: string;
  /** Best section's score plus half the next one's. */
  score: number;
  /** The first pass's page score. */
  pageScore: number;
  best: SectionScore;
  second?: SectionScore;
  /** What each field alone scores for the best section (only when asked for). */
  fields?: Record<PageField, number>;
}

export function rankSections(
  file: SearchIndexFile,
  terms: ResolvedTerm[],
  pages: { doc: number; score: number }[],
  options: { explain?: boolean } = {},
): RankedPage[] {
  const totals = file.totals();
  const averageSection = totals.sections > 0 ? totals.sectionTokens / totals.sections : 1;
  const wanted = new Map(terms.map((t, i) => [t.termId, i]));
  const ranked: RankedPage[] = [];
  for (const candidate of pages) {
    const row = file.page(candidate.doc);
    if (!row) continue; // re-indexed or deleted by another process since the first pass
    const { lengths, sections, matches } = decodeForward(row.data, wanted);
    const pageFields = lengths.title + lengths.summary + lengths.tags;
    const sectionLength = (s: number) => pageFields + sections[s]!.heading + sections[s]!.content;
    const scoreOf = (s: number, weights: Record<PageField, number>) => {
      let score = 0;
      for (const match of matches) {
        const term = terms[match.term]!;
        let tf = weights.title * match.title + weights.summary * match.summary + weights.tags * match.tags;
        for (let i = 0; i < match.sections.length; i += 3) {
          if (match.sections[i] !== s) continue;
          tf += weights.heading * match.sections[i + 1]! + weights.content * match.sections[i + 2]!;
          break;
        }
        score += sectionTermScore(term.idf * term.weight, tf, sectionLength(s), averageSection);
      }
      return score;
    };
    const scored = sections.map((_, s) => ({ position: s, score: scoreOf(s, FIELD_WEIGHTS) }));
    scored.sort((a, b) => b.score - a.score || a.position - b.position);
    const [best, second] = scored;
    if (!best || best.score <= 0) continue;
    const page: RankedPage = {
      doc: row.doc,
      pageId: row.id,
      slug: row.slug,
      title: row.title,
      score: best.score + NEXT_SECTION_SHARE * (second?.score ?? 0),
      pageScore: candidate.score,
      best,
      ...(second && second.score > 0 ? { second } : {}),
    };
    if (options.explain) {
      const only = (field: PageField) => ({ title: 0, heading: 0, summary: 0, tags: 0, content: 0, [field]: FIELD_WEIGHTS[field] });
      page.fields = {
        title: scoreOf(best.position, only('title')),
        heading: scoreOf(best.position, only('heading')),
        summary: scoreOf(best.position, only('summary')),
        tags: scoreOf(best.position, only('tags')),
        content: scoreOf(best.position, only('content')),
      };
    }
    ranked.push(page);
  }
  return ranked.sort((a, b) => b.score - a.score || b.pageScore - a.pageScore || a.doc - b.doc);
}
