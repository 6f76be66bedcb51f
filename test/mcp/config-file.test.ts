// parley.config.yaml: where it is found, what a pasted MCP client configuration becomes, and one
// line per mistake (never a crash) whatever the file holds.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFileConfig } from '../../src/config-file/load.ts';
import { parseFileConfig } from '../../src/config-file/schema.ts';
import { ConfigError } from '../../src/core/env.ts';
import { tempDir } from '../helpers/harness.ts';

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration file', () => {
  it('no file: no MCP servers; parley.config.yaml in the working folder is found', () => {
    const dir = tempDir();
    expect(loadFileConfig({}, dir)).toEqual({ mcpServers: [] });
    writeFileSync(join(dir, 'parley.config.yaml'), 'mcpServers:\n  a: { command: srv }\n');
    expect(loadFileConfig({}, dir)).toMatchObject({
      path: join(dir, 'parley.config.yaml'),
      mcpServers: [{ name: 'a', transport: 'stdio', command: 'srv' }],
    });
  });

  it('a configuration pasted from another MCP client (JSON) works as is', () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/docs'],
            env: { DEBUG: 1 },
            cwd: 'sub',
          },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
          github: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own syntax, written literally
          legacy: { type: 'sse', url: 'http://127.0.0.1:9000/sse?user=${USER_NAME:-guest}' },
          off: { command: 'x', disabled: true },
        },
      }),
    );
    const config = loadFileConfig({ PARLEY_CONFIG: 'mcp.json', GH_TOKEN: 'ghp_secret' }, dir);
    expect(config.mcpServers).toEqual([
      {
        name: 'filesystem',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/docs'],
        env: { DEBUG: '1' },
        cwd: join(dir, 'sub'),
        tools: { allow: [], deny: [] },
        approval: {},
        disabled: false,
        secrets: [],
      },
      {
        name: 'github',
        transport: 'http',
        url: 'https://api.example.com/mcp',
        headers: { Authorization: 'Bearer ghp_secret' },
        tools: { allow: [], deny: [] },
        approval: {},
        disabled: false,
        // What the server says is redacted of these (a default written in the file is not a secret).
        secrets: ['ghp_secret'],
      },
      {
        name: 'legacy',
        transport: 'sse',
        url: 'http://127.0.0.1:9000/sse?user=guest',
        headers: {},
        tools: { allow: [], deny: [] },
        approval: {},
        disabled: false,
        secrets: [],
      },
      {
        name: 'off',
        transport: 'stdio',
        command: 'x',
        args: [],
        env: {},
        tools: { allow: [], deny: [] },
        approval: {},
        disabled: true,
        secrets: [],
      },
    ]);
  });

  it("Parley's own keys: tools lists, per-tool approval, timeout", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'parley.config.yaml'),
      'mcpServers:\n  a:\n    command: srv\n    tools: { allow: [read_*], deny: [read_secret] }\n    approval: { read_log: always }\n    timeout: 2m\n',
    );
    expect(loadFileConfig({}, dir).mcpServers[0]).toMatchObject({
      tools: { allow: ['read_*'], deny: ['read_secret'] },
      approval: { read_log: 'always' },
      timeoutMs: 120_000,
    });
  });

  it('a missing, unreadable or oversized file names itself', () => {
    const dir = tempDir();
    expect(errorOf(() => loadFileConfig({ PARLEY_CONFIG: 'nope.yaml' }, dir))).toBe(
      'Invalid configuration: cannot read the configuration file nope.yaml (it does not exist); check PARLEY_CONFIG',
    );
    mkdirSync(join(dir, 'folder.yaml'));
    expect(errorOf(() => loadFileConfig({ PARLEY_CONFIG: 'folder.yaml' }, dir))).toBe('Invalid configuration: folder.yaml is not a file');
    writeFileSync(join(dir, 'big.yaml'), `# ${'x'.repeat(1_000_001)}\n`);
    expect(errorOf(() => loadFileConfig({ PARLEY_CONFIG: 'big.yaml' }, dir))).toBe('Invalid configuration: big.yaml is larger than 1 MB');
  });

  it('YAML mistakes and duplicate keys come with their line', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'parley.config.yaml'), 'mcpServers:\n  a: { command: x }\n  a: { command: y }\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toBe(
      'Invalid configuration in parley.config.yaml (1 mistake):\n  parley.config.yaml:3: duplicate key "a"',
    );
    writeFileSync(join(dir, 'parley.config.yaml'), 'mcpServers:\n  a:\n    command: "unterminated\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toMatch(
      /^Invalid configuration in parley\.config\.yaml \(1 mistake\):\n {2}parley\.config\.yaml:\d+: Missing closing "quote$/,
    );
    writeFileSync(join(dir, 'parley.config.yaml'), 'mcpServers:\n  - command: x\n');
    expect(errorOf(() => loadFileConfig({}, dir))).toBe(
      'Invalid configuration in parley.config.yaml (1 mistake):\n  parley.config.yaml:1: mcpServers: expects a map of server name to { command, ... } or { url, ... }',
    );
  });

  it('every mistake of an entry is its own line, with the key it is about', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'parley.config.yaml'),
      [
        'mcpServers:',
        '  both: { command: x, url: "http://h" }',
        '  a__b: { command: x }',
        '  typo:',
        '    command: x',
        '    arg: [1]',
        '    tools: { allow: read }',
        '  web:',
        '    type: stdio',
        '    url: https://h/mcp',
        '    headers: { "bad header": v }',
        '  Typo: { command: y }',
      ].join('\n'),
    );
    expect(errorOf(() => loadFileConfig({}, dir)).split('\n')).toEqual([
      'Invalid configuration in parley.config.yaml (7 mistakes):',
      '  parley.config.yaml:2: mcpServers.both: has both command (stdio) and url (HTTP); keep one',
      '  parley.config.yaml:3: mcpServers.a__b: server names are 1-32 letters, digits, _ or - (no "__": tools are named <server>__<tool>)',
      '  parley.config.yaml:6: mcpServers.typo.arg: unknown key (expected one of: type, tools, approval, timeout, disabled, command, args, env, cwd)',
      '  parley.config.yaml:7: mcpServers.typo.tools.allow: expects a list of tool names',
      '  parley.config.yaml:9: mcpServers.web.type: is stdio, but the server has a url (HTTP)',
      '  parley.config.yaml:11: mcpServers.web.headers["bad header"]: is not a valid header name',
      '  parley.config.yaml:12: mcpServers.Typo: differs from server "typo" only in case; rename one',
    ]);
  });

  it('property: whatever a server entry holds, the result is a configuration or mistakes, never a crash', () => {
    const entry = fc.oneof(
      fc.anything(),
      fc.record(
        { command: fc.anything(), args: fc.anything(), env: fc.anything(), tools: fc.anything(), approval: fc.anything() },
        { requiredKeys: [] },
      ),
      fc.record({ url: fc.anything(), headers: fc.anything(), type: fc.anything(), timeout: fc.anything() }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), entry, { maxKeys: 4 }), (servers) => {
        const { config, issues } = parseFileConfig({ mcpServers: servers }, { env: {}, baseDir: '/' });
        expect(config === undefined).toBe(issues.length > 0);
        for (const issue of issues) expect(issue.message.length).toBeGreaterThan(0);
      }),
      { seed: 42, numRuns: 500 },
    );
  });
});
