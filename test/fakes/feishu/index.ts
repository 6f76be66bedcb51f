export { FakeFeishu, type FeishuChat, type FeishuUser, type StoredMessage } from './server.ts';
