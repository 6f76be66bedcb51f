// docs/api-reference.md against the public entry (src/index.ts) and the types it exports: the page
// is written by hand beside the types (TypeDoc needs TypeScript 5's compiler API; this project's
// TypeScript 7 has none), so this keeps it from going stale.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ParleyConfigSchema } from '../../src/framework/config.ts';
import * as api from '../../src/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(ROOT, 'docs', 'api-reference.md'), 'utf8');
const entry = readFileSync(join(ROOT, 'src', 'index.ts'), 'utf8');

/** The names src/index.ts exports (values and types). */
function exportedNames(): string[] {
  const names: string[] = [];
  for (const [, list] of entry.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list!.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1)!;
      if (name) names.push(name);
    }
  }
  return names.sort();
}

/** `### \`Name\`` headings, each with its text up to the next heading. */
function sections(): Map<string, string> {
  const found = new Map<string, string>();
  const parts = page.split(/^### `([^`]+)`\n/m);
  for (let i = 1; i < parts.length; i += 2) found.set(parts[i]!, parts[i + 1]!.split(/^#{2,3} /m)[0]!);
  return found;
}

/** Top-level members of each exported interface in src/framework/. */
function interfaceMembers(): Map<string, string[]> {
  const members = new Map<string, string[]>();
  const dir = join(ROOT, 'src', 'framework');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(join(dir, file), 'utf8');
    for (const match of source.matchAll(/^export interface (\w+)[^{]*\{\n/gm)) {
      const body = source.slice(match.index + match[0].length, source.indexOf('\n}\n', match.index));
      const names = [...body.matchAll(/^ {2}(?:readonly\s+)?(\w+)\??\s*[:(<]/gm)].map((m) => m[1]!);
      members.set(match[1]!, names);
    }
  }
  return members;
}

describe('docs/api-reference.md', () => {
  it('has one section for each name the public entry exports, and none for anything else', () => {
    const exported = exportedNames();
    expect(exported).toContain('defineTool');
    expect([...sections().keys()].sort()).toEqual(exported);
    // The values among them are what the package really exports at run time.
    expect(Object.keys(api).sort()).toEqual(['defineConfig', 'definePlugin', 'defineTool', 'z']);
  });

  it('mentions every member of every exported interface in its section', () => {
    const documented = sections();
    const exported = new Set(exportedNames());
    const missing: string[] = [];
    for (const [name, members] of interfaceMembers()) {
      if (!exported.has(name)) continue;
      const text = documented.get(name) ?? '';
      for (const member of members) if (!text.includes(`\`${member}`)) missing.push(`${name}.${member}`);
    }
    expect(missing).toEqual([]);
    expect(interfaceMembers().get('ToolContext')).toContain('memory');
  });

  it('mentions every key of defineConfig', () => {
    const text = sections().get('ConfigOptions') ?? '';
    const keys = Object.keys(ParleyConfigSchema.shape);
    expect(keys).toContain('tools');
    expect(keys.filter((key) => !text.includes(`\`${key}\``))).toEqual([]);
  });
});
