// `parley knowledge search <query...>` (or `-`: one query per line on standard input, one JSON
// line per query) and `parley knowledge synonyms [add|rm]`.
// A search reads pages only, so on SQLite it opens the SQL driver and the knowledge repository's
// read functions alone instead of the store (no migration check: most of the command's start-up),
// and the modules a command needs are loaded when it runs.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ExplainedHit } from '../knowledge/knowledge-base.ts';
import type { KnowledgeSearcher } from '../knowledge/knowledge-searcher.ts';
import { CliError, parsePositiveInt, type CliContext } from './context.ts';
import type { MarkedHit } from './knowledge-prompt.ts';

/** Longest query `search -` takes from a line (the model's tool takes 500 characters). */
const MAX_QUERY_CHARS = 2_000;

const SearchFlags = z.object({ limit: z.string(), explain: z.boolean().optional(), json: z.boolean().optional() });
const JsonFlag = z.object({ json: z.boolean().optional() });
// A synonym: a word or short phrase; commas separate words, so they cannot be part of one.
const SynonymWord = z
  .string()
  .transform((word) => word.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase())
  .pipe(
    z
      .string()
      .min(1, 'a synonym is empty')
      .max(60, 'a synonym is longer than 60 characters')
      .regex(/^[^,，、\n#]+$/, 'a synonym cannot contain , or #'),
  );

async function withSearcher<T>(ctx: CliContext, work: (searcher: KnowledgeSearcher) => Promise<T>): Promise<T> {
  const [{ KnowledgeSearcher }, { knowledgeIndexFile }, { embeddingSettings }] = await Promise.all([
    import('../knowledge/knowledge-searcher.ts'),
    import('../knowledge/index-location.ts'),
    import('../knowledge/search/embedder.ts'),
  ]);
  const { database } = ctx.config;
  const reader =
    database.provider === 'sqlite' && database.file !== ':memory:'
      ? await (await import('../store/repos/knowledge-reader.ts')).openKnowledgeReader(database)
      : undefined;
  // No database yet (or PostgreSQL): the store creates and migrates it as every command does.
  const source = reader ?? (await ctx.store()).knowledge;
  const searcher = new KnowledgeSearcher({
    source,
    indexFile: knowledgeIndexFile(database, ctx.io.cwd),
    embeddings: embeddingSettings(ctx.config),
  });
  try {
    return await work(searcher);
  } finally {
    await searcher.close();
    await reader?.close();
  }
}

async function searchOne(
  ctx: CliContext,
  searcher: KnowledgeSearcher,
  query: string,
  options: z.output<typeof SearchFlags>,
  limit: number,
): Promise<void> {
  const [{ printExplained, printHits }, { markPromptHits, promptLegend }] = await Promise.all([
    import('./knowledge-output.ts'),
    import('./knowledge-prompt.ts'),
  ]);
  const settings = ctx.config.knowledge;
  const noTerms = () => new CliError(`nothing to search for in "${query}" (only very common words)`);
  const result = options.explain ? await searcher.explain(query, { limit }) : await searcher.search(query, { limit });
  if (result.terms.length === 0) throw noTerms();
  const hits = await markPromptHits(searcher, settings, query, result.hits);
  if (settings.deprecation) ctx.io.err(`parley: ${settings.deprecation}\n`);
  if (options.json) return ctx.json({ ...result, hits });
  if (options.explain) printExplained(ctx, hits as MarkedHit<ExplainedHit>[], result.terms, result.dropped);
  else printHits(ctx, hits);
  if (hits.length) ctx.line(promptLegend(settings));
}

/** One JSON line per query line: the query, the results with their scores, and how long it took. */
async function searchLines(
  ctx: CliContext,
  searcher: KnowledgeSearcher,
  options: z.output<typeof SearchFlags>,
  limit: number,
): Promise<void> {
  if (!ctx.io.stdin) throw new CliError('search - reads queries from standard input, and there is none');
  const { createInterface } = await import('node:readline');
  const { markPromptHits } = await import('./knowledge-prompt.ts');
  const lines = createInterface({ input: ctx.io.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const query = line.trim();
    if (!query) continue;
    const started = performance.now();
    const out: Record<string, unknown> = { query };
    if (query.length > MAX_QUERY_CHARS) out.error = `the query is longer than ${MAX_QUERY_CHARS} characters`;
    else {
      const result = options.explain ? await searcher.explain(query, { limit }) : await searcher.search(query, { limit });
      Object.assign(out, {
        results: await markPromptHits(searcher, ctx.config.knowledge, query, result.hits),
        terms: result.terms,
        corrections: result.corrections,
        synonyms: result.synonyms,
        semantic: result.semantic,
      });
      if (result.terms.length === 0) out.error = 'nothing to search for (only very common words)';
    }
    out.ms = Math.round((performance.now() - started) * 100) / 100;
    ctx.io.out(`${JSON.stringify(out)}\n`);
  }
}

export function registerSearchCommands(knowledge: Command, ctx: CliContext): void {
  knowledge
    .command('search <query...>')
    .description(
      'Search pages (English and Chinese); "-" reads one query per line from standard input and prints one JSON line each; --explain shows the score of each field',
    )
    .option('--limit <n>', 'how many pages', '5')
    .option('--explain', 'break the score down by field')
    .option('--json', 'machine-readable output')
    .action(async (words: string[], raw: unknown) => {
      const options = SearchFlags.parse(raw);
      const query = words.join(' ').trim();
      if (!query) throw new CliError('the query is empty');
      const limit = parsePositiveInt(options.limit, '--limit');
      await withSearcher(ctx, async (searcher) => {
        // A progress bar only on a terminal (its library is loaded only then).
        const bar = ctx.io.isTTY ? (await import('./progress.ts')).progressBar(ctx.io, 'Indexing') : undefined;
        try {
          await searcher.sync(bar && (({ done, total }) => bar.update(done, total)));
        } finally {
          bar?.stop();
        }
        if (query === '-' && words.length === 1) return searchLines(ctx, searcher, options, limit);
        return searchOne(ctx, searcher, query, options, limit);
      });
    });

  const synonyms = knowledge
    .command('synonyms')
    .description('Words that mean the same in questions (built-in list and your own); search looks for all of them')
    .option('--json', 'machine-readable output')
    .action(async (raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const { BUILTIN_SYNONYMS } = await import('../knowledge/search/synonyms.ts');
      const own = await ownSynonyms(ctx);
      if (options.json) return ctx.json({ own, builtin: BUILTIN_SYNONYMS });
      ctx.table(
        ['source', 'words'],
        [...own.map((g) => ['yours', g.join(', ')]), ...BUILTIN_SYNONYMS.map((g) => ['built-in', g.join(', ')])],
      );
      ctx.line(`${own.length} group${own.length === 1 ? '' : 's'} of yours (page parley/synonyms), ${BUILTIN_SYNONYMS.length} built in.`);
    });

  synonyms
    .command('add <words...>')
    .description('Add a group (words separated by spaces or commas; quote phrases); merges with your groups that share a word')
    .option('--json', 'machine-readable output')
    .action(async (words: string[], raw: unknown) => {
      const options = JsonFlag.parse(raw);
      const parsed = z.array(SynonymWord).safeParse(words.flatMap((w) => w.split(/[,，、]/)).filter((w) => w.trim()));
      if (!parsed.success) throw new CliError(parsed.error.issues[0]!.message);
      const group = [...new Set(parsed.data)];
      if (group.length < 2) throw new CliError('a synonym group needs at least two different words');
      const { addSynonyms } = await import('../knowledge/search/synonyms.ts');
      const saved = await saveOwnSynonyms(ctx, (groups) => addSynonyms(groups, group), `synonyms add ${group.join(', ')}`);
      const merged = saved.find((g) => group.every((w) => g.includes(w)))!;
      if (options.json) return ctx.json({ group: merged, groups: saved.length });
      ctx.line(`Synonyms: ${merged.join(', ')}.`);
    });

  synonyms
    .command('rm <word>')
    .description('Remove a word from your groups (built-in groups stay)')
    .option('--json', 'machine-readable output')
    .action(async (raw: string, rawOptions: unknown) => {
      const options = JsonFlag.parse(rawOptions);
      const parsed = SynonymWord.safeParse(raw);
      if (!parsed.success) throw new CliError(parsed.error.issues[0]!.message);
      const word = parsed.data;
      const { BUILTIN_SYNONYMS, removeSynonym } = await import('../knowledge/search/synonyms.ts');
      if (!(await ownSynonyms(ctx)).some((g) => g.includes(word))) {
        const builtin = BUILTIN_SYNONYMS.some((g) => g.includes(word));
        throw new CliError(
          builtin
            ? `"${word}" is in a built-in group, which cannot be removed`
            : `"${word}" is in none of your synonym groups (see: parley knowledge synonyms)`,
        );
      }
      const saved = await saveOwnSynonyms(ctx, (groups) => removeSynonym(groups, word), `synonyms rm ${word}`);
      if (options.json) return ctx.json({ removed: word, groups: saved.length });
      ctx.line(`Removed "${word}" from your synonyms.`);
    });
}

async function ownSynonyms(ctx: CliContext): Promise<string[][]> {
  const [{ parseSynonyms, SYNONYMS_SLUG }, store] = await Promise.all([import('../knowledge/search/synonyms.ts'), ctx.store()]);
  const page = await store.knowledge.get(SYNONYMS_SLUG);
  return page ? parseSynonyms(page.content) : [];
}

/** Rewrites the synonyms page with `change` applied (a new revision), and returns the groups. */
async function saveOwnSynonyms(ctx: CliContext, change: (groups: string[][]) => string[][], note: string): Promise<string[][]> {
  const [{ parseSynonyms, synonymsPage, SYNONYMS_SLUG }, { KnowledgeBase }, { knowledgeIndexFile }, { parsePageInput }] = await Promise.all(
    [
      import('../knowledge/search/synonyms.ts'),
      import('../knowledge/knowledge-base.ts'),
      import('../knowledge/index-location.ts'),
      import('../knowledge/page-file.ts'),
    ],
  );
  const store = await ctx.store();
  const kb = new KnowledgeBase({ repo: store.knowledge, indexFile: knowledgeIndexFile(ctx.config.database, ctx.io.cwd) });
  try {
    const page = await kb.get(SYNONYMS_SLUG);
    const groups = change(page ? parseSynonyms(page.content) : []);
    const result = await kb.save(parsePageInput(synonymsPage(groups)), { source: 'cli', note, expectedRevision: page?.revision ?? 0 });
    if (result.status === 'conflict') throw new CliError('the synonyms changed meanwhile; nothing was written, try again', 1);
    return groups;
  } finally {
    await kb.close();
  }
}
