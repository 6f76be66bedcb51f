// The model's knowledge tools: search_knowledge and read_knowledge_page run freely;
// write_knowledge_page changes what every conversation sees, so a person approves each call.
import { z } from 'zod';
import { defineTool, type AnyTool } from '../agent/tools.ts';
import type { KnowledgePageRecord } from '../store/repos/knowledge.ts';
import type { KnowledgeBase } from './knowledge-base.ts';
import type { parsePageInput } from './page-file.ts';
import { sectionLabel, pageSections } from './search/indexed-page.ts';

export const CITE_HINT = 'Cite the slug of every page you use in square brackets, e.g. [guides/setup].';

function pageText(page: KnowledgePageRecord, sectionQuery?: string): string | undefined {
  const header = [
    `# ${page.title}`,
    `slug: ${page.slug} · revision ${page.revision} · updated ${page.updatedAt.toISOString().slice(0, 10)}${page.tags.length ? ` · tags: ${page.tags.join(', ')}` : ''}`,
    ...(page.summary ? [`summary: ${page.summary}`] : []),
    ...(page.references.length ? [`references: ${page.references.join(', ')}`] : []),
  ].join('\n');
  if (!sectionQuery) return `${header}\n\n${page.content}`;
  const wanted = sectionQuery.trim().toLowerCase();
  const section = pageSections(page.content).find((s) => sectionLabel(s.path).toLowerCase().includes(wanted));
  return section ? `${header}\nsection: ${sectionLabel(section.path)}\n\n${section.markdown}` : undefined;
}

export function createKnowledgeTools(kb: KnowledgeBase): AnyTool[] {
  const search = defineTool({
    name: 'search_knowledge',
    description: `Search the knowledge base (pages in English, Chinese or other languages). Returns the best pages with the matching section, a snippet and a score. Pages are often written in another language than the question: search in the language of the pages as well (translate the question, e.g. a Chinese question into English, and search again), and use the words the page would use, not only the user's. Read a page with read_knowledge_page for details. ${CITE_HINT}`,
    parameters: z.object({
      query: z.string().trim().min(1).max(500).describe('What to look for, in the words (and the language) the answer page would use'),
      limit: z.number().int().min(1).max(10).default(5).describe('How many pages (1-10, default 5)'),
    }),
    approval: 'never',
    idempotent: true,
    activity: { key: 'activity.searchingKnowledge' },
    async execute({ query, limit }) {
      const { hits } = await kb.search(query, { limit });
      if (hits.length === 0) return `No knowledge page matches "${query}". Try other words, or the language the pages are written in.`;
      // The match share is for the automatic context's threshold; the model ranks by reading.
      return JSON.stringify({ results: hits.map(({ match: _match, ...hit }) => hit), note: CITE_HINT });
    },
  });

  const read = defineTool({
    name: 'read_knowledge_page',
    description: `Read a knowledge page by its slug (from search_knowledge), whole or one section. ${CITE_HINT}`,
    parameters: z.object({
      slug: z.string().trim().min(1).max(200),
      section: z.string().trim().max(200).optional().describe('Only the section whose heading contains this text'),
    }),
    approval: 'never',
    idempotent: true,
    activity: { key: 'activity.readingKnowledge' },
    async execute({ slug, section }) {
      const page = await kb.get(slug.toLowerCase());
      if (!page) return { content: `There is no knowledge page with slug "${slug}". Use search_knowledge to find one.`, isError: true };
      const text = pageText(page, section);
      if (text === undefined) {
        const headings = pageSections(page.content).map((s) => sectionLabel(s.path));
        return { content: `Page ${page.slug} has no section matching "${section}". Its sections: ${headings.join('; ')}`, isError: true };
      }
      return text;
    },
  });

  const write = defineTool({
    name: 'write_knowledge_page',
    description:
      'Create a knowledge page, or replace the content of an existing one (the old version stays in its history). A person must approve every call. Give a short title, a one-sentence summary and Markdown content.',
    parameters: z.object({
      slug: z.string().trim().min(1).max(200).describe('Page id: lower-case words with - and / (e.g. guides/setup)'),
      title: z.string().trim().min(1).max(300),
      summary: z.string().max(2_000).default('').describe('One or two sentences'),
      content: z.string().max(200_000).describe('The page in Markdown'),
      tags: z.array(z.string().max(60)).max(20).default([]),
      references: z.array(z.string().max(500)).max(50).default([]).describe('URLs or slugs the page draws on'),
    }),
    approval: 'always',
    activity: { key: 'activity.writingKnowledge' },
    describe: (args) => ({ key: 'approval.describeWritePage', vars: { slug: args.slug, title: args.title } }),
    async execute(args, ctx) {
      // Page files (YAML, markdown-it: about 15 MB resident) load with the first write, not at start.
      const { PageFileError, parsePageInput } = await import('./page-file.ts');
      let input: ReturnType<typeof parsePageInput>;
      try {
        input = parsePageInput(args);
      } catch (error) {
        if (error instanceof PageFileError) return { content: `Invalid page: ${error.message}`, isError: true };
        throw error;
      }
      const result = await kb.save(input, {
        source: 'bot',
        author: `${ctx.requester.displayName} (${ctx.chat.channel}:${ctx.requester.id})`,
      });
      if (result.status === 'conflict')
        return { content: `Page ${input.slug} changed while writing; read it again and retry.`, isError: true };
      if (result.status === 'unchanged')
        return `Page ${input.slug} already has this content (revision ${result.page.revision}); nothing changed.`;
      return `${result.status === 'created' ? 'Created' : 'Updated'} page ${input.slug} (revision ${result.page.revision}).`;
    },
  });

  return [search, read, write] as AnyTool[];
}
