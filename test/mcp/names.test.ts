import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exposedNames, firstMatch, hiddenBecause, matchesPattern } from '../../src/mcp/names.ts';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  it('are <server>__<tool> when the tool name is already fine', () => {
    expect([...exposedNames('notes', ['read_note', 'get-weather']).values()]).toEqual(['notes__read_note', 'notes__get-weather']);
  });

  it('clean up characters chat APIs refuse, and keep names apart that clean up alike', () => {
    const names = exposedNames('fs', ['files.read', 'files_read', 'Files_Read', 'ünïcode/tool']);
    expect(names.get('files.read')).toBe('fs__files_read');
    expect(names.get('files_read')).toMatch(/^fs__files_read_[0-9a-f]{6}$/);
    expect(names.get('Files_Read')).toMatch(/^fs__Files_Read_[0-9a-f]{6}$/);
    expect(names.get('ünïcode/tool')).toBe('fs___n_code_tool');
  });

  it('property: always valid for chat APIs, prefixed, and distinct even ignoring case', () => {
    const server = fc.stringMatching(/^[A-Za-z0-9-]{1,32}$/);
    const tools = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 100, unit: 'grapheme' }), { maxLength: 30 });
    fc.assert(
      fc.property(server, tools, (name, list) => {
        const names = exposedNames(name, list);
        const values = [...names.values()];
        expect(names.size).toBe(list.length);
        for (const value of values) {
          expect(value).toMatch(VALID);
          expect(value.startsWith(`${name}__`)).toBe(true);
        }
        expect(new Set(values.map((v) => v.toLowerCase())).size).toBe(values.length);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('patterns: * matches any run, everything else literally', () => {
    expect(matchesPattern('read_*', 'read_note')).toBe(true);
    expect(matchesPattern('read_*', 'delete_note')).toBe(false);
    expect(matchesPattern('a.b', 'axb')).toBe(false);
    expect(matchesPattern('*', 'anything')).toBe(true);
    expect(firstMatch({ read_note: 'never', 'read_*': 'always' }, 'read_note')).toBe('never');
    expect(firstMatch({ 'read_*': 'always' }, 'read_file')).toBe('always');
    expect(firstMatch({ 'read_*': 'always' }, 'write')).toBeUndefined();
  });

  it('allow and deny lists: deny wins, an empty allow list allows everything', () => {
    expect(hiddenBecause('read', { allow: [], deny: [] })).toBeUndefined();
    expect(hiddenBecause('read', { allow: ['read*'], deny: ['read'] })).toBe('in the deny list');
    expect(hiddenBecause('write', { allow: ['read*'], deny: [] })).toBe('not in the allow list');
  });
});
