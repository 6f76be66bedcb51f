export * from './types.ts';
export { LlmError, toLlmError, type LlmErrorKind } from './errors.ts';
export { createLlmClient, llmClientFromConfig, type LlmClientOptions } from './client.ts';
