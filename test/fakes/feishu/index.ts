export { FakeFeishu, type FeishuChat, type StoredMessage } from './server.ts';
