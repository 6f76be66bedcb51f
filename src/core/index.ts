export * from './types.ts';
export * from './errors.ts';
export * from './commands.ts';
export * from './env.ts';
export { splitMessage } from './text-split.ts';
export { answerOnce, type AnswerOnce } from './ack.ts';
