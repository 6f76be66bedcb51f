// The automatic context's threshold, calibrated: of the questions whose right page ranks first
// (golden, short and hard sets, by the question's language), how many get that page into the
// prompt with the score threshold of earlier versions (PARLEY_KNOWLEDGE_MIN_SCORE=12) and with
// the match share (PARLEY_KNOWLEDGE_MIN_MATCH); how many off-topic messages and wrong first
// pages get in too; and the share at other values of the match threshold. The default is
// calibrated as the largest threshold (in steps of 0.01) that lets in at least CALIBRATION_SHARE
// of the right first pages of each language (printed as "calibrated").
import { DEFAULT_KNOWLEDGE_MIN_MATCH } from '../src/config/config.ts';
import type { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { GOLDEN_QUESTIONS, OFF_TOPIC_MESSAGES, SHORT_QUESTIONS } from './knowledge-golden.ts';
import { HARD_QUESTIONS } from './knowledge-hard.ts';

/** The default of PARLEY_KNOWLEDGE_MIN_SCORE before the match share replaced it. */
const OLD_MIN_SCORE = 12;
const SWEEP = [0.2, 0.25, 0.3, 0.35, 0.4];
/** The share of right first pages, in each language, that the calibrated threshold lets in. */
const CALIBRATION_SHARE = 0.95;

type Lang = 'en' | 'zh';

interface Probe {
  set: string;
  lang: Lang;
  query: string;
  /** Undefined for off-topic messages. */
  wanted?: string[];
}

interface Top {
  probe: Probe;
  right: boolean;
  score: number;
  match: number;
}

const languageOf = (text: string): Lang => (/\p{Script=Han}/u.test(text) ? 'zh' : 'en');

function probes(): Probe[] {
  const paired = (set: string, questions: typeof GOLDEN_QUESTIONS) =>
    questions.flatMap((q) =>
      (['en', 'zh'] as const).map((lang) => ({ set, lang, query: q[lang], wanted: q.answers.map((a) => `${lang}/${a}`) })),
    );
  return [
    ...paired('golden', GOLDEN_QUESTIONS),
    ...paired('short', SHORT_QUESTIONS),
    // The answer may be in either language (the cross-language kind); the question's language is what matters here.
    ...HARD_QUESTIONS.map((q) => ({ set: 'hard', lang: languageOf(q.q), query: q.q, wanted: q.answers.map((a) => `${q.lang}/${a}`) })),
    ...OFF_TOPIC_MESSAGES.map((m) => ({ set: 'off-topic', lang: languageOf(m), query: m })),
  ];
}

async function tops(kb: KnowledgeBase): Promise<Top[]> {
  const out: Top[] = [];
  for (const probe of probes()) {
    const hit = (await kb.search(probe.query, { limit: 1 })).hits[0];
    out.push({ probe, right: Boolean(hit && probe.wanted?.includes(hit.slug)), score: hit?.score ?? 0, match: hit?.match ?? 0 });
  }
  return out;
}

const rate = (tops: Top[], pass: (t: Top) => boolean) => {
  const n = tops.filter(pass).length;
  return `${n}/${tops.length} (${tops.length ? Math.round((100 * n) / tops.length) : 0}%)`.padEnd(13);
};

export async function thresholdSection(kb: KnowledgeBase): Promise<void> {
  const all = await tops(kb);
  const before = (t: Top) => t.score >= OLD_MIN_SCORE;
  const after = (t: Top) => t.match >= DEFAULT_KNOWLEDGE_MIN_MATCH;
  console.log(
    `\nAutomatic context: of the questions whose right page ranks first, how many get it into the prompt (before: score >= ${OLD_MIN_SCORE}; after: match >= ${DEFAULT_KNOWLEDGE_MIN_MATCH})`,
  );
  console.log('set          lang  before        after         match at 0.2 / 0.25 / 0.3 / 0.35 / 0.4');
  const sets = ['golden', 'short', 'hard', 'all'];
  for (const set of sets) {
    for (const lang of ['en', 'zh'] as const) {
      const rows = all.filter((t) => t.right && t.probe.lang === lang && (set === 'all' ? t.probe.wanted : t.probe.set === set));
      const sweep = SWEEP.map((m) => rows.filter((t) => t.match >= m).length).join(' / ');
      console.log(`${set.padEnd(12)} ${lang}    ${rate(rows, before)} ${rate(rows, after)} ${sweep} of ${rows.length}`);
    }
  }
  const off = all.filter((t) => !t.probe.wanted);
  const right = (lang: Lang) => all.filter((t) => t.right && t.probe.lang === lang);
  let calibrated = 0;
  for (let m = 0.01; m <= 1; m = Math.round((m + 0.01) * 100) / 100) {
    const keeps = (['en', 'zh'] as const).every((lang) => {
      const rows = right(lang);
      return rows.filter((t) => t.match >= m).length >= CALIBRATION_SHARE * rows.length;
    });
    if (keeps) calibrated = m;
  }
  const at = (t: Top) => t.match >= calibrated;
  console.log(
    `calibrated: ${calibrated} (the largest match threshold that lets in ${CALIBRATION_SHARE * 100}% of the right first pages in each language): en ${rate(right('en'), at)} zh ${rate(right('zh'), at)} off-topic ${rate(off, at)}`,
  );
  const wrong = all.filter((t) => t.probe.wanted && !t.right && t.score > 0);
  console.log(`off-topic messages in the prompt: before ${rate(off, before)} after ${rate(off, after)}`);
  console.log(`  ${off.map((t) => `${t.probe.query} (score ${t.score.toFixed(1)}, match ${t.match.toFixed(2)})`).join('; ')}`);
  console.log(
    `questions whose first page is not the right one, in the prompt anyway: before ${rate(wrong, before)} after ${rate(wrong, after)}`,
  );
}
