// Detects a model repeating the same tool call with the same arguments within one turn.
import type { ToolCall } from '../llm/types.ts';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** Same tool + same arguments (key order and whitespace ignored) → same signature. */
function callSignature(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  let args: unknown = call.arguments;
  try {
    args = canonical(JSON.parse(call.arguments));
  } catch {
    args = call.arguments.trim();
  }
  return `${call.name}\u0000${JSON.stringify(args)}`;
}

export type LoopVerdict = { kind: 'ok' } | { kind: 'warn'; count: number } | { kind: 'stop'; count: number };

export class LoopDetector {
  readonly #counts = new Map<string, number>();
  readonly #warnAt: number;
  readonly #stopAt: number;
  constructor(warnAt: number, stopAt: number) {
    this.#warnAt = warnAt;
    this.#stopAt = stopAt;
  }

  /** Count calls already made earlier in the turn (rebuilt from the database on resume). */
  seed(calls: Iterable<Pick<ToolCall, 'name' | 'arguments'>>): void {
    for (const call of calls) this.observe(call);
  }

  observe(call: Pick<ToolCall, 'name' | 'arguments'>): LoopVerdict {
    const signature = callSignature(call);
    const count = (this.#counts.get(signature) ?? 0) + 1;
    this.#counts.set(signature, count);
    if (count >= this.#stopAt) return { kind: 'stop', count };
    if (count >= this.#warnAt) return { kind: 'warn', count };
    return { kind: 'ok' };
  }
}
