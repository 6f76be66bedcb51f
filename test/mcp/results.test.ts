// MCP tool results and argument schemas, as the model and the agent see them.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/agent/tool-runner.ts';
import type { AnyTool } from '../../src/agent/tools.ts';
import { argumentsSchema, modelSchema } from '../../src/mcp/json-schema.ts';
import { mcpApproval } from '../../src/mcp/policy.ts';
import { toolOutput } from '../../src/mcp/result.ts';

const png = Buffer.alloc(2048).toString('base64');

describe('MCP results as tool results', () => {
  it('text as is, media as notes, structured content once', () => {
    expect(
      toolOutput({
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', description: 'the file' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'B!' } },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        ],
        structuredContent: { ok: true },
      }),
    ).toEqual({
      content: [
        'Here:',
        '[image: image/png, 2.0 KB; not shown]',
        '[audio: audio/wav, 3 bytes; not played]',
        '[resource link: a.txt <file:///a.txt> — the file]',
        '[resource <file:///b.txt>]\nB!',
        '[resource <file:///c.bin>: application/zip, 3 bytes; not shown]',
        'Structured content:\n{\n  "ok": true\n}',
      ].join('\n'),
      isError: false,
    });
    // A text block that already carries the structured content: not repeated.
    expect(toolOutput({ content: [{ type: 'text', text: '{"ok": true}' }], structuredContent: { ok: true } }).content).toBe('{"ok": true}');
    expect(toolOutput({ content: [], isError: true })).toEqual({ content: 'The tool reported an error without details.', isError: true });
    expect(toolOutput({ content: [] })).toEqual({ content: '(the tool returned nothing)', isError: false });
  });
});

function toolWith(schema: Record<string, unknown>, validator = new AjvJsonSchemaValidator()): AnyTool {
  return { name: 'srv__t', description: 't', parameters: argumentsSchema(schema, validator), execute: async () => '' };
}

describe('MCP argument schemas', () => {
  it('arguments are checked against the JSON Schema with one readable line per problem', () => {
    const tool = toolWith({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        mode: { enum: ['r', 'w'] },
        opts: { type: 'object', properties: { depth: { type: 'integer' } } },
      },
      required: ['path'],
      additionalProperties: false,
    });
    expect(parseArguments(tool, '{"path": "a", "mode": "r", "opts": {"depth": 2}}')).toEqual({
      ok: true,
      args: { path: 'a', mode: 'r', opts: { depth: 2 } },
    });
    const bad = parseArguments(tool, '{"mode": "x", "opts": {"depth": 1.5}, "extra": 1}');
    expect(bad.ok).toBe(false);
    const error = (bad as { error: string }).error;
    expect(error).toMatch(/^Invalid arguments for srv__t: /);
    for (const part of [
      "arguments must have required property 'path'",
      'arguments must NOT have additional properties',
      'mode must be equal to one of the allowed values',
      'opts.depth must be integer',
    ]) {
      expect(error).toContain(part);
    }
  });

  it('two tools whose schemas share an $id are each checked against their own', () => {
    const validator = new AjvJsonSchemaValidator();
    const a = toolWith({ $id: 'urn:args', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, validator);
    const b = toolWith({ $id: 'urn:args', type: 'object', properties: { b: { type: 'number' } }, required: ['b'] }, validator);
    expect(parseArguments(a, '{"a": "x"}').ok).toBe(true);
    expect(parseArguments(b, '{"b": 1}').ok).toBe(true);
    expect(parseArguments(b, '{"a": "x"}').ok).toBe(false);
  });

  it('a schema that cannot be compiled is refused up front', () => {
    expect(() =>
      argumentsSchema({ type: 'object', properties: { x: { $ref: '#/definitions/missing' } } }, new AjvJsonSchemaValidator()),
    ).toThrow();
  });

  it('the model gets the schema without $schema, always as an object', () => {
    expect(
      modelSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(modelSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });
});

describe('MCP approval policy', () => {
  const tool = (annotations?: Record<string, boolean>) => ({
    name: 'x',
    inputSchema: { type: 'object' as const },
    ...(annotations ? { annotations } : {}),
  });
  it('only read-only tools run without approval, unless the configuration says otherwise', () => {
    expect(mcpApproval(tool({ readOnlyHint: true }), {})).toEqual({ approval: 'never', reason: 'read-only' });
    expect(mcpApproval(tool({ readOnlyHint: true, openWorldHint: true }), {})).toEqual({ approval: 'never', reason: 'read-only' });
    expect(mcpApproval(tool(), {})).toEqual({ approval: 'always', reason: 'no annotations' });
    expect(mcpApproval(tool({ destructiveHint: true }), {})).toEqual({ approval: 'always', reason: 'destructive' });
    expect(mcpApproval(tool({ readOnlyHint: false, destructiveHint: false, openWorldHint: true }), {})).toEqual({
      approval: 'always',
      reason: 'open world, not read-only',
    });
    expect(mcpApproval(tool({ idempotentHint: true }), {})).toEqual({ approval: 'always', reason: 'not marked read-only' });
    expect(mcpApproval(tool({ destructiveHint: true }), { '*': 'never' })).toEqual({ approval: 'never', reason: 'configuration file' });
    expect(mcpApproval(tool({ readOnlyHint: true }), { x: 'always' })).toEqual({ approval: 'always', reason: 'configuration file' });
  });
});
