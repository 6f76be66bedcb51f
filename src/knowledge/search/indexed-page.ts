// How a page becomes index rows: one row per section (split by heading), each carrying the page's
// title, summary and tags so a section is found by what its page is about as well as by its text.
import type { KnowledgePageRecord } from '../../store/repos/knowledge.ts';
import { outline, type PageSection } from '../markdown.ts';
import { tokenize as defaultTokenize, type Tokenize } from '../tokenizer.ts';
import type { IndexedPage } from './index-file.ts';

export const SECTION_PATH_SEPARATOR = ' › ';

/** The page's sections; a page without body text still has one (empty) section to be found by. */
export function pageSections(content: string): PageSection[] {
  const { sections } = outline(content);
  return sections.length > 0 ? sections : [{ index: 0, path: [], markdown: content, text: '' }];
}

export function sectionLabel(path: string[] | string): string {
  const label = Array.isArray(path) ? path.join(SECTION_PATH_SEPARATOR) : path;
  return label || '(introduction)';
}

export function toIndexedPage(page: KnowledgePageRecord, tokenize: Tokenize = defaultTokenize): IndexedPage {
  const terms = (text: string) => tokenize(text).join(' ');
  const title = terms(page.title);
  const summary = terms(page.summary);
  const tags = terms(page.tags.join(' '));
  return {
    id: page.id,
    slug: page.slug,
    title: page.title,
    revision: page.revision,
    sections: pageSections(page.content).map((section) => ({
      position: section.index,
      path: section.path.join(SECTION_PATH_SEPARATOR),
      terms: { title, heading: terms(section.path.join(' ')), summary, tags, content: terms(section.text) },
    })),
  };
}
