// Second pass: within each page the first pass found, score every section by BM25 (the section
// with its page's title, summary and tags) from the page's stored counts, and rank the pages by
// their best section plus half the next one.
import { FIELD_WEIGHTS, NEXT_SECTION_SHARE, sectionTermScore, type PageField } from './bm25.ts';
import type { ResolvedTerm } from './first-pass.ts';
import type { SearchIndexFile } from './index-file.ts';
import { decodeForward } from './indexed-page.ts';

interface SectionScore {
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
  /** What each query term scores in the best section (only when asked for; terms it lacks are absent). */
  bestTerms?: Map<string, number>;
}

// Scratch space for the counts of the page being scored.
let heading = new Float64Array(1024);
let content = new Float64Array(1024);

export function rankSections(
  file: SearchIndexFile,
  terms: ResolvedTerm[],
  pages: { doc: number; score: number }[],
  options: { explain?: boolean; termScores?: boolean } = {},
): RankedPage[] {
  const totals = file.totals();
  const averageSection = totals.sections > 0 ? totals.sectionTokens / totals.sections : 1;
  const wanted = new Map(terms.map((t, i) => [t.termId, i]));
  const ranked: RankedPage[] = [];
  const rows = file.pages(pages.map((p) => p.doc));
  for (const candidate of pages) {
    const row = rows.get(candidate.doc);
    if (!row) continue; // re-indexed or deleted by another process since the first pass
    const { lengths, sectionLengths, matches } = decodeForward(row.data, wanted);
    const pageFields = lengths.title + lengths.summary + lengths.tags;
    const sectionCount = sectionLengths.length;
    // Per matched term m and section s: its counts in the section's heading path and text.
    const size = matches.length * sectionCount;
    if (heading.length < size) {
      heading = new Float64Array(size * 2);
      content = new Float64Array(size * 2);
    }
    heading.fill(0, 0, size);
    content.fill(0, 0, size);
    matches.forEach((match, m) => {
      for (let i = 0; i < match.sections.length; i += 3) {
        heading[m * sectionCount + match.sections[i]!] = match.sections[i + 1]!;
        content[m * sectionCount + match.sections[i]!] = match.sections[i + 2]!;
      }
    });
    const scoreOf = (s: number, weights: Record<PageField, number>, perTerm?: Map<string, number>) => {
      const length = pageFields + sectionLengths[s]!;
      let score = 0;
      for (let m = 0; m < matches.length; m++) {
        const match = matches[m]!;
        const tf =
          weights.title * match.title +
          weights.summary * match.summary +
          weights.tags * match.tags +
          weights.heading * heading[m * sectionCount + s]! +
          weights.content * content[m * sectionCount + s]!;
        if (tf <= 0) continue;
        const term = terms[match.term]!;
        const termScore = sectionTermScore(term.idf * term.weight, tf, length, averageSection);
        score += termScore;
        perTerm?.set(term.term, termScore);
      }
      return score;
    };
    let best: SectionScore | undefined;
    let second: SectionScore | undefined;
    for (let s = 0; s < sectionCount; s++) {
      const score = scoreOf(s, FIELD_WEIGHTS);
      if (!best || score > best.score) {
        second = best;
        best = { position: s, score };
      } else if (!second || score > second.score) second = { position: s, score };
    }
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
    if (options.termScores) {
      page.bestTerms = new Map();
      scoreOf(best.position, FIELD_WEIGHTS, page.bestTerms);
    }
    if (options.explain) {
      const only = (field: PageField) => ({ title: 0, heading: 0, summary: 0, tags: 0, content: 0, [field]: FIELD_WEIGHTS[field] });
      const position = best.position;
      page.fields = {
        title: scoreOf(position, only('title')),
        heading: scoreOf(position, only('heading')),
        summary: scoreOf(position, only('summary')),
        tags: scoreOf(position, only('tags')),
        content: scoreOf(position, only('content')),
      };
    }
    ranked.push(page);
  }
  return ranked.sort((a, b) => b.score - a.score || b.pageScore - a.pageScore || a.doc - b.doc);
}
