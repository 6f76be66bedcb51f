export { FakeDiscord, type InteractionState, type StoredMessage } from './server.ts';
export type { DChannel } from './payloads.ts';
