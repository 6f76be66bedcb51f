import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/core/text-split.ts';

function fencesBalanced(piece: string): boolean {
  return (piece.match(/^```/gm)?.length ?? 0) % 2 === 0;
}

describe('splitMessage', () => {
  it('leaves short text alone', () => {
    expect(splitMessage('hello', 100)).toEqual(['hello']);
  });

  it('prefers paragraph, then line, then word boundaries', () => {
    const text = `${'a'.repeat(60)}\n\n${'b'.repeat(60)}`;
    expect(splitMessage(text, 100)).toEqual(['a'.repeat(60), 'b'.repeat(60)]);
    const lines = `${'a'.repeat(60)}\n${'b'.repeat(60)}`;
    expect(splitMessage(lines, 100)).toEqual(['a'.repeat(60), 'b'.repeat(60)]);
    const words = `${'word '.repeat(30).trim()}`;
    const pieces = splitMessage(words, 40);
    expect(pieces.every((p) => p.length <= 40 && !p.startsWith(' ') && !p.endsWith(' '))).toBe(true);
    expect(pieces.join(' ')).toBe(words);
  });

  it('never cuts inside a code block that fits in one message', () => {
    const code = `\`\`\`ts\n${'const x = 1;\n'.repeat(5)}\`\`\``;
    const text = `${'intro '.repeat(10)}\n\n${code}\n\nafter`;
    const pieces = splitMessage(text, 100);
    expect(pieces.some((p) => p.includes(code))).toBe(true);
    expect(pieces.every((p) => p.length <= 100 && fencesBalanced(p))).toBe(true);
  });

  it('closes and reopens a code block that is longer than a message', () => {
    const code = `\`\`\`python\n${Array.from({ length: 40 }, (_, i) => `print(${i})`).join('\n')}\n\`\`\``;
    const pieces = splitMessage(code, 120);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(120);
      expect(piece.startsWith('```python\n')).toBe(true);
      expect(piece.endsWith('```')).toBe(true);
    }
    const lines = pieces.flatMap((p) => p.split('\n').filter((l) => !l.startsWith('```')));
    expect(lines).toEqual(Array.from({ length: 40 }, (_, i) => `print(${i})`));
  });

  it('keeps every character of a long mixed text across pieces', () => {
    const text = Array.from({ length: 200 }, (_, i) => (i % 17 === 0 ? '```\ncode line\n```' : `Sentence number ${i} is here.`)).join('\n');
    const pieces = splitMessage(text, 4096 / 8);
    expect(pieces.every((p) => p.length <= 512 && fencesBalanced(p))).toBe(true);
    expect(pieces.join('\n').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
  });
});
