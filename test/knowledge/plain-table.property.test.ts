// Property test of the CLI's own table drawing (src/cli/plain-table.ts): whenever it draws a table
// (output that is not a terminal, cells it can measure), the text is exactly what cli-table3
// prints; cells it cannot measure (line breaks, emoji, combining marks, other scripts) are left to cli-table3.
import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainTable } from '../../src/cli/plain-table.ts';

const Table = createRequire(import.meta.url)('cli-table3') as typeof TableType;

function cliTable3(head: string[], rows: string[][]): string {
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows);
  return table.toString();
}

// What search hits, listings and histories hold (ASCII, CJK, "…", Latin-1), and what the plain drawing must refuse.
const measurable = ['a', 'Z', '0', ' ', '/', '-', '.', '#', '…', '—', 'é', '·', '按', '钮', '，', 'ア', '한', 'Ａ', '、'];
const other = ['\n', '\t', '😀', '©', '〰', '\u0301', 'ж', '\u001b[31m', '\u200b', '→', '\u{20000}'];
const text = (chars: string[]) => fc.array(fc.constantFrom(...chars), { maxLength: 12 }).map((parts) => parts.join(''));
const cell = fc.oneof({ weight: 6, arbitrary: text(measurable) }, { weight: 1, arbitrary: text([...measurable, ...other]) });

describe('plain tables', () => {
  it('are what cli-table3 prints, whenever they are drawn', () => {
    let drawn = 0;
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 5 })
          .chain((columns) =>
            fc.tuple(
              fc.array(cell, { minLength: columns, maxLength: columns }),
              fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), { minLength: 1, maxLength: 4 }),
            ),
          ),
        ([head, rows]) => {
          const plain = plainTable(head, rows);
          if (plain === undefined) return;
          drawn++;
          expect(plain).toBe(cliTable3(head, rows));
        },
      ),
      { numRuns: 400 },
    );
    expect(drawn).toBeGreaterThan(100);
  });

  it('draws search hits with Chinese text and clipped snippets, and leaves emoji and line breaks to cli-table3', () => {
    const head = ['#', 'score', 'slug', 'section', 'snippet'];
    const hits = [
      ['1', '10.36', 'zh/plugins/keyboard', '按钮 › 内联键盘', 'Use ctx.reply with reply_markup: 内联键盘的按钮…'],
      ['2', '9.80', 'en/guide/basics', '(introduction)', 'Send a message with buttons'],
    ];
    expect(plainTable(head, hits)).toBe(cliTable3(head, hits));
    expect(plainTable(head, [['1', '2', 'a', 'b', 'party 🎉']])).toBeUndefined();
    expect(plainTable(head, [['1', '2', 'a', 'b', 'two\nlines']])).toBeUndefined();
  });
});
