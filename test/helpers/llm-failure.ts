// What a model client call failed with: the test fails unless it is an LlmError.
import { expect } from 'vitest';
import { LlmError } from '../../src/llm/errors.ts';

export async function llmFailure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}
