// MCP tools describe their arguments in JSON Schema. The model gets that schema as is; Parley
// validates arguments against it with the SDK's ajv validator, wrapped as a zod schema so the
// agent checks them exactly where it checks every tool's arguments: before the call and before
// any approval prompt.
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';

export type JsonObject = Record<string, unknown>;

/** The schema for the model: without `$schema`, always an object with properties. */
export function modelSchema(schema: JsonObject): JsonObject {
  const { $schema: _ignored, ...rest } = schema;
  return { ...rest, type: 'object', properties: rest.properties ?? {} };
}

/** "data/path must ..., data must ..." → one readable line per problem, naming the argument. */
function problems(errorMessage: string): string[] {
  return errorMessage
    .split(/, (?=data\b)/)
    .map((part) =>
      part.replace(/^data(\/\S*)?/, (_m, path: string | undefined) => (path ? path.slice(1).replace(/\//g, '.') : 'arguments')),
    );
}

/**
 * A zod schema that accepts exactly what the JSON Schema accepts. Throws when the schema cannot
 * be compiled (the tool is then left out, with the reason logged).
 */
export function argumentsSchema(schema: JsonObject, validator: jsonSchemaValidator): z.ZodType {
  // A root $id would make ajv reuse another tool's compiled schema with the same id.
  const { $id: _id, $schema: _draft, ...own } = schema;
  const check = validator.getValidator<unknown>(own as JsonSchemaType);
  return z.unknown().superRefine((value, ctx) => {
    const result = check(value);
    if (!result.valid) for (const message of problems(result.errorMessage)) ctx.addIssue({ code: 'custom', message });
  });
}
