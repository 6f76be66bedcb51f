// How an MCP server's tools are named for the model (`<server>__<tool>`, within what chat APIs
// accept: 1-64 of A-Z a-z 0-9 _ -) and which of them the configuration lets through.
import { createHash } from 'node:crypto';

const MAX_NAME = 64;

/** `*` matches any run of characters; everything else literally (case-sensitive, as MCP names are). */
export function matchesPattern(pattern: string, name: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(name);
}

export function firstMatch<T>(map: Record<string, T>, name: string): T | undefined {
  if (Object.hasOwn(map, name)) return map[name];
  const pattern = Object.keys(map).find((key) => key.includes('*') && matchesPattern(key, name));
  return pattern === undefined ? undefined : map[pattern];
}

/** Why a tool is hidden by the server's `tools` lists, or undefined when it is offered. */
export function hiddenBecause(name: string, filter: { allow: string[]; deny: string[] }): string | undefined {
  if (filter.deny.some((pattern) => matchesPattern(pattern, name))) return 'in the deny list';
  if (filter.allow.length > 0 && !filter.allow.some((pattern) => matchesPattern(pattern, name))) return 'not in the allow list';
  return undefined;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}

/**
 * Model-facing names for one server's tools, in the server's order. Characters chat APIs refuse
 * become `_`; a name that would be too long, or that collides with an earlier one once cleaned
 * up (`a.b` and `a_b`), is shortened and gets a short hash of the original name.
 */
export function exposedNames(server: string, tools: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const prefix = `${server}__`;
  for (const tool of tools) {
    let name = prefix + tool.replace(/[^A-Za-z0-9_-]/g, '_');
    if (name.length > MAX_NAME || taken.has(name.toLowerCase())) {
      const suffix = `_${shortHash(tool)}`;
      name = name.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    taken.add(name.toLowerCase());
    names.set(tool, name);
  }
  return names;
}
