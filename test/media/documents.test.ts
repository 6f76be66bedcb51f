import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docxText, pdfText, plainText } from '../../src/media/documents.ts';
import { textPdf } from '../helpers/media-files.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'media', name));

describe('document text within a budget', () => {
  it('reads every page of a short PDF, page by page', async () => {
    const read = await pdfText(fixture('report.pdf'), 1_000);
    expect(read).toMatchObject({ pages: 3, pagesLeft: 0, cut: false });
    expect(read.text).toBe(
      '[page 1]\nQuarterly report: revenue grew 12 percent.\n\n[page 2]\nPage two: the new office opens in March.\n\n[page 3]\nPage three: hiring two engineers.',
    );
  });

  it('stops at the budget and says how many pages were left out', async () => {
    const read = await pdfText(fixture('report.pdf'), 12);
    expect(read).toMatchObject({ pages: 3, pagesLeft: 2, cut: true });
    expect(read.text).toBe('[page 1]\nQuarterly report: revenue grew 12 percent.');
  });

  it('a 10,000-page PDF costs its first pages only', async () => {
    const pdf = textPdf(Array.from({ length: 10_000 }, (_, i) => `Page ${i + 1} of the long one.`));
    const read = await pdfText(pdf, 100);
    expect(read.pages).toBe(10_000);
    expect(read.text.startsWith('[page 1]\nPage 1 of the long one.')).toBe(true);
    expect(read.pagesLeft).toBeGreaterThan(9_980);
  });

  it('a damaged PDF is refused as corrupt; one without any text as empty', async () => {
    await expect(pdfText(fixture('corrupt.pdf'), 1_000)).rejects.toMatchObject({ problem: 'corrupt-pdf' });
    await expect(pdfText(Buffer.from('%PDF-1.4\n%%EOF\n'), 1_000)).rejects.toMatchObject({ problem: 'corrupt-pdf' });
    await expect(pdfText(textPdf(['', '']), 1_000)).rejects.toMatchObject({ problem: 'empty' });
  });

  it('reads a DOCX with mammoth; a ZIP that is no document is refused', async () => {
    expect(await docxText(fixture('notes.docx'), 1_000)).toEqual({
      text: 'Meeting notes for the launch.\n\nAction: Bob books the venue.',
      cut: false,
    });
    await expect(docxText(Buffer.from('PK\x03\x04 not really'), 1_000)).rejects.toMatchObject({ problem: 'unreadable-document' });
  });

  it('text files as they are (BOM dropped), cut at the budget', () => {
    expect(plainText(Buffer.from('\uFEFFa,b\n1,2\n'), 100)).toEqual({ text: 'a,b\n1,2\n', cut: false });
    const cut = plainText(Buffer.from('word '.repeat(1_000)), 50);
    expect(cut.cut).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(200);
  });
});
