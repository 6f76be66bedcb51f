export { FakeFeishu, type FeishuChat, type FeishuUser, type StoredMessage, type Delivery } from './server.ts';
export { encrypt, sign } from './crypto.ts';
