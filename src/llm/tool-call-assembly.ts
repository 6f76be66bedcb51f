// Tool calls put together from a stream's deltas, as servers really send them (see
// ../shared/docs/PLATFORM-FACTS.md, "OpenAI-compatible models"): OpenAI keys fragments by `index`
// with the id and name in the first one only; Gemini (and some proxies) send each call whole without
// `index`, several in one chunk; some proxies put `index: 0` on every call; MiniMax on NIM,
// Fireworks and Kimi repeat `id`, `type` and `function.name` in every fragment. A call begins where a
// fragment brings a new id (or a new index); a fragment without either continues the last call; a
// repeated name or id is set, never appended. Fields of a call the client does not know
// (`extra_content` with Gemini's thought signature) are kept, to be sent back as they came.
import type { ToolCall } from './types.ts';

export interface ToolCallFragment {
  index?: number | null;
  id?: string | null;
  type?: unknown;
  function?: { name?: string | null; arguments?: string | null } | null;
  [field: string]: unknown;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  extra?: Record<string, unknown>;
}

const KNOWN_FIELDS = new Set(['index', 'id', 'type', 'function']);

export class ToolCallAssembly {
  readonly #calls: PartialCall[] = [];
  readonly #byIndex = new Map<number, PartialCall>();

  get size(): number {
    return this.#calls.length;
  }

  add(fragment: ToolCallFragment): void {
    const call = this.#callFor(fragment);
    if (fragment.id) call.id = fragment.id;
    const name = fragment.function?.name;
    // Set, or (a server that splits a name, as early OpenAI streams could) extended; never the same name twice.
    if (name && name !== call.name) call.name = call.name === '' ? name : `${call.name}${name}`;
    if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    for (const field of Object.keys(fragment)) {
      if (KNOWN_FIELDS.has(field) || fragment[field] === undefined || fragment[field] === null) continue;
      call.extra = { ...call.extra, [field]: fragment[field] };
    }
  }

  #callFor(fragment: ToolCallFragment): PartialCall {
    const last = this.#calls.at(-1);
    const { index, id } = fragment;
    let call: PartialCall | undefined;
    if (index !== undefined && index !== null) {
      call = this.#byIndex.get(index);
      // `index: 0` on every call (some proxies): a different id is a different call.
      if (call && id && call.id && id !== call.id) call = undefined;
    } else if (id) {
      call = this.#calls.find((known) => known.id === id);
    } else {
      const name = fragment.function?.name;
      // Neither index nor id: the last call goes on, unless this fragment names another tool.
      call = last && !(name && last.name && name !== last.name) ? last : undefined;
    }
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.#calls.push(call);
    }
    if (index !== undefined && index !== null) this.#byIndex.set(index, call);
    return call;
  }

  /** The calls in the order they began; a call without an id is given `call_<n>`. */
  calls(): ToolCall[] {
    return this.#calls.map((call, n) => ({
      id: call.id || `call_${n}`,
      name: call.name,
      arguments: call.arguments,
      ...(call.extra ? { extra: call.extra } : {}),
    }));
  }
}
