export { FakeDiscord, type FakeDiscordOptions, type InteractionState, type RecordedCall, type StoredMessage } from './server.ts';
export type { DChannel, DMessage, DUser } from './payloads.ts';
