// Variants of a real payload with its optional fields taken away, for property tests of what an
// adapter accepts: each optional field left as it is, absent, null, or (a string) empty, fast-check
// choosing which; and an unknown field added to some objects, as a newer API version would send.
// Arrays are left whole (an entity without its offset is not a leaner entity but a broken one).
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Path = readonly string[];

/** How a field may be varied: `empty` only (a string that is always sent but may be ''), or not at all. */
export type FieldRule = 'optional' | 'required' | 'empty-only';

type Choice = 'keep' | 'absent' | 'null' | 'empty';

export interface Variant {
  payload: JsonObject;
  /** What was changed, one `a.b.c: absent` line per change, for failure messages. */
  changes: string[];
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every field path of the objects in `value` (parents before their children), and every object's path. */
function walk(value: JsonObject, prefix: Path = [], fields: Path[] = [], objects: Path[] = [prefix]): { fields: Path[]; objects: Path[] } {
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, key];
    fields.push(path);
    if (isObject(child)) {
      objects.push(path);
      walk(child, path, fields, objects);
    }
  }
  return { fields, objects };
}

function at(root: JsonObject, path: Path): JsonObject | undefined {
  let node: Json | undefined = root;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return isObject(node) ? node : undefined;
}

function choicesFor(value: Json, rule: FieldRule): Choice[] {
  if (rule === 'required') return ['keep'];
  const empty: Choice[] = typeof value === 'string' && value !== '' ? ['empty'] : [];
  return rule === 'empty-only' ? ['keep', ...empty] : ['keep', 'absent', 'null', ...empty];
}

/** Variants of `template`; `rule` says which fields may be varied and how. */
export function optionalFieldVariants(template: JsonObject, rule: (path: Path) => FieldRule): fc.Arbitrary<Variant> {
  const { fields, objects } = walk(template);
  const varied = fields
    .map((path) => ({ path, choices: choicesFor(at(template, path.slice(0, -1))![path.at(-1)!]!, rule(path)) }))
    .filter((field) => field.choices.length > 1);
  return fc
    .tuple(fc.tuple(...varied.map((field) => fc.constantFrom(...field.choices))), fc.tuple(...objects.map(() => fc.boolean())))
    .map(([choices, unknown]) => {
      const payload = structuredClone(template);
      const changes: string[] = [];
      varied.forEach(({ path }, i) => {
        const choice = choices[i]!;
        const parent = at(payload, path.slice(0, -1));
        const key = path.at(-1)!;
        if (choice === 'keep' || !parent || !(key in parent)) return;
        if (choice === 'absent') delete parent[key];
        else parent[key] = choice === 'null' ? null : '';
        changes.push(`${path.join('.')}: ${choice}`);
      });
      objects.forEach((path, i) => {
        const target = at(payload, path);
        if (!unknown[i] || !target) return;
        target.field_from_the_future = { added_in: 'a later API version', values: [1, null, ''] };
        changes.push(`${[...path, 'field_from_the_future'].join('.')}: added`);
      });
      return { payload, changes };
    });
}

/** A payload as plain JSON (what the wire carries). */
export function asJson(value: unknown): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
