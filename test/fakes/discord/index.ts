export { FakeDiscord, type InteractionState, type StoredMessage } from './server.ts';
export { snowflake } from './payloads.ts';
export type { DChannel, DMessage, DUser } from './payloads.ts';
