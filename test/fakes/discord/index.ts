export { FakeDiscord, type InteractionState, type StoredMessage } from './server.ts';
export { snowflake } from './payloads.ts';
export type { DChannel, DUser } from './payloads.ts';
