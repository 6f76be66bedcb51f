export { FakeTelegram, type FaultOptions, type WebhookDelivery, type WebhookState } from './server.ts';
export { FloodControl, type RateLimits } from './rate-limit.ts';
export { parseTelegramHtml, EntityParseError } from './html.ts';
export { detectEntities } from './world.ts';
export {
  errors,
  type RecordedCall,
  type StoredMessage,
  type TgChat,
  type TgMessage,
  type TgUpdate,
  type TgUser,
  type TgError,
} from './types.ts';
