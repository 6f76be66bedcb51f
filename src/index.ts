// Parley's public API: what `import ... from 'parley'` gives a project. Nothing else under src/ is
// part of it. docs/api-reference.md documents every name exported here (test/framework/api-reference.test.ts).
export { z } from 'zod';
export { type ConfigOptions, defineConfig, type ParleyConfig } from './framework/config.ts';
export type {
  AfterToolVerdict,
  BeforeToolVerdict,
  CommandContext,
  CommandOptions,
  ContextSection,
  ContextSectionInput,
  ContextSectionResult,
  HookContext,
  IncomingMessage,
  MessageVerdict,
  ModelRequestInfo,
  ModelResponseInfo,
  Plugin,
  PluginOptions,
  ToolCallInfo,
  ToolCallResult,
  TurnEndInfo,
} from './framework/plugin.ts';
export { definePlugin } from './framework/plugin.ts';
export type { SessionMemory, Tool, ToolApproval, ToolContext, ToolOptions, ToolResult } from './framework/tool.ts';
export { defineTool } from './framework/tool.ts';
