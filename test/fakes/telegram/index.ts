export { FakeTelegram } from './server.ts';
export { parseTelegramHtml } from './html.ts';
export { errors, type RecordedCall, type StoredMessage, type TgChat, type TgUser } from './types.ts';
export { TelegramWorld } from './world.ts';
