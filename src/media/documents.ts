// A document's text for the model, within a budget of tokens: text-like files as they are, PDF
// text page by page (unpdf, pdf.js), DOCX text (mammoth). Only as many pages are read as fit: a
// 10,000-page PDF costs its first pages, and the rest is one line ("… 9,997 more pages not shown").
import { estimateTokens, truncateToTokens } from '../agent/tokens.ts';
import { MediaError } from './media-error.ts';
import { checkZipUnpackedSize, ZipTooLargeError } from './zip-guard.ts';

export interface DocumentText {
  text: string;
  /** Pages (PDF) left out for the budget. */
  pagesLeft?: number;
  /** The text was cut at the budget (a text file, a DOCX, or a PDF page). */
  cut: boolean;
  /** Pages of a PDF. */
  pages?: number;
}

/** A DOCX may unpack to at most this much (its text and images); more is refused before mammoth reads it. */
const MAX_DOCX_UNPACKED_BYTES = 50_000_000;

/** PDF.js needs no worker thread for text; extraction stops at this many pages whatever the budget. */
const MAX_PDF_PAGES_READ = 200;

/** Text as it came, without a byte-order mark; bytes that are not UTF-8 become U+FFFD. */
export function plainText(bytes: Buffer, budgetTokens: number): DocumentText {
  const text = new TextDecoder('utf-8')
    .decode(bytes)
    .replace(/^\uFEFF/, '')
    .replaceAll('\0', '');
  return fitted(text, budgetTokens);
}

function fitted(text: string, budgetTokens: number): DocumentText {
  if (estimateTokens(text) <= budgetTokens) return { text, cut: false };
  return { text: truncateToTokens(text, budgetTokens, ''), cut: true };
}

type PdfJs = typeof import('unpdf');
let unpdf: Promise<PdfJs> | undefined;

export async function pdfText(bytes: Buffer, budgetTokens: number, signal?: AbortSignal): Promise<DocumentText> {
  unpdf ??= import('unpdf');
  const { getDocumentProxy } = await unpdf;
  let pdf: Awaited<ReturnType<PdfJs['getDocumentProxy']>>;
  try {
    // A copy: pdf.js takes the buffer over (detaches it).
    pdf = await getDocumentProxy(new Uint8Array(bytes), { stopAtErrors: true, verbosity: 0 });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'PasswordException') throw new MediaError('encrypted-pdf', 'the PDF is protected by a password', { cause: error });
    throw new MediaError('corrupt-pdf', `pdf.js could not open it: ${(error as Error).message}`, { cause: error });
  }
  try {
    const pages = pdf.numPages;
    const parts: string[] = [];
    let used = 0;
    let read = 0;
    let cut = false;
    for (let number = 1; number <= Math.min(pages, MAX_PDF_PAGES_READ); number++) {
      if (signal?.aborted) throw signal.reason;
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      page.cleanup();
      const text = content.items
        .map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : ''))
        .join('')
        .trim();
      read = number;
      const room = budgetTokens - used;
      const tokens = estimateTokens(text);
      if (tokens > room) {
        // The page that does not fit is shown cut, unless the budget is spent.
        if (room > 50) parts.push(`[page ${number}]\n${truncateToTokens(text, room, '')}`);
        else read = number - 1;
        cut = true;
        break;
      }
      if (text) parts.push(`[page ${number}]\n${text}`);
      used += tokens;
    }
    const text = parts.join('\n\n');
    if (read > 0 && text === '' && !cut) throw new MediaError('empty', 'the PDF has no text (scanned pages?)');
    return { text, pages, pagesLeft: pages - read, cut };
  } catch (error) {
    if (error instanceof MediaError || signal?.aborted) throw error;
    throw new MediaError('corrupt-pdf', `pdf.js could not read a page: ${(error as Error).message}`, { cause: error });
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

export async function docxText(bytes: Buffer, budgetTokens: number): Promise<DocumentText> {
  try {
    checkZipUnpackedSize(bytes, MAX_DOCX_UNPACKED_BYTES);
  } catch (error) {
    if (!(error instanceof ZipTooLargeError)) throw error;
    throw new MediaError('unreadable-document', `refused before unpacking: ${error.message}`, { cause: error });
  }
  const mammoth = await import('mammoth');
  let text: string;
  try {
    text = (await (mammoth.default ?? mammoth).extractRawText({ buffer: bytes })).value;
  } catch (error) {
    throw new MediaError('unreadable-document', `mammoth could not read it: ${(error as Error).message}`, { cause: error });
  }
  const trimmed = text.replace(/\n{3,}/g, '\n\n').trim();
  if (!trimmed) throw new MediaError('empty', 'the document has no text');
  return fitted(trimmed, budgetTokens);
}
