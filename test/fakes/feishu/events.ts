// Schema 2.0 events as the real open platform pushes them, explicit nulls and all. Where the shapes
// come from:
// - Field set of `im.message.receive_v1`: the typed handler of @larksuiteoapi/node-sdk 1.74
//   (types/index.d.ts, `"im.message.receive_v1"`): header fields flattened in, `sender.tenant_key`,
//   `message.update_time`, `user_agent`, `mentions[].tenant_key`, ids as { union_id, user_id, open_id }.
// - Values as delivered: raw payloads posted from live apps, e.g. a webhook event in
//   larksuite/lark-openapi-mcp#28 (create_time / update_time strings, user_agent) and a long-connection
//   frame in larksuite/oapi-sdk-go#195 (header.token "" on the long connection).
// - Explicit nulls: a live app's debug log published in a public repository (a raw group @mention
//   with `sender_id.user_id: null`, `root_id`, `parent_id`, `thread_id`, `user_agent` null and the
//   mention's `id.user_id: null`), and a Rust bot's regression test "measured live" (线上实测):
//   `user_id: null` without the employee-ID scope, `mentions: null` in a p2p message without an @,
//   null `tenant_key`. An app without the "obtain user ID" scope never sees a `user_id`.
// - `card.action.trigger`: larksuite/oapi-sdk-go event/dispatcher/callback/model.go (operator
//   { tenant_key, user_id (both nullable), open_id, union_id }, token, action { value, tag, option,
//   timezone, name, form_value, input_value, options, checked }, host, delivery_type, context { url,
//   preview_token, open_message_id, open_chat_id }); over the long connection `operator.user_id` is
//   missing (openclaw/openclaw#60749, #65392).
import { randomUUID } from 'node:crypto';

interface EventPerson {
  openId: string;
  name: string;
}

/** Who the events are for: the app and its tenant. */
export interface EventApp {
  appId: string;
  tenantKey: string;
  verificationToken: string;
}

interface Header {
  event_id: string;
  token: string;
  create_time: string;
  event_type: string;
  tenant_key: string;
  app_id: string;
}

interface UserIds {
  union_id: string | null;
  user_id: string | null;
  open_id: string;
}

interface ReceivedMention {
  key: string;
  id: UserIds;
  name: string;
  tenant_key: string | null;
}

export interface MessageEventPayload {
  schema: '2.0';
  header: Header;
  event: {
    sender: { sender_id: UserIds; sender_type: string; tenant_key: string | null };
    message: {
      message_id: string;
      root_id: string | null;
      parent_id: string | null;
      create_time: string;
      update_time: string;
      chat_id: string;
      thread_id: string | null;
      chat_type: string;
      message_type: string;
      content: string;
      mentions: ReceivedMention[] | null;
      user_agent: string | null;
    };
  };
}

export interface ClickEventPayload {
  schema: '2.0';
  header: Header;
  event: {
    operator: { tenant_key: string | null; user_id: string | null; open_id: string; union_id: string | null };
    token: string;
    action: {
      value: unknown;
      tag: string;
      option: string | null;
      timezone: string | null;
      name: string | null;
      form_value: Record<string, unknown> | null;
      input_value: string | null;
      options: string[] | null;
      checked: boolean | null;
    };
    host: string | null;
    delivery_type: string | null;
    context: { url: string | null; preview_token: string | null; open_message_id: string; open_chat_id: string };
  };
}

const hex32 = () => randomUUID().replace(/-/g, '');

function headerOf(app: EventApp, eventType: string): Header {
  return {
    event_id: hex32(),
    token: app.verificationToken,
    create_time: String(Date.now()),
    event_type: eventType,
    tenant_key: app.tenantKey,
    app_id: app.appId,
  };
}

/** A person's ids as an app without the "obtain user ID" scope sees them. */
function idsOf(person: EventPerson): UserIds {
  return { union_id: `on_${person.openId.slice(3)}`, user_id: null, open_id: person.openId };
}

export interface MessageInput {
  messageId: string;
  chatId: string;
  chatType: 'p2p' | 'group';
  messageType: string;
  /** The message content as sent (a JSON string). */
  content: string;
  from: EventPerson;
  mentions: readonly { key: string; who: EventPerson }[];
  parentId?: string;
  rootId?: string;
  threadId?: string;
}

export function messageEventOf(app: EventApp, input: MessageInput): MessageEventPayload {
  const now = String(Date.now());
  return {
    schema: '2.0',
    header: headerOf(app, 'im.message.receive_v1'),
    event: {
      sender: { sender_id: idsOf(input.from), sender_type: 'user', tenant_key: app.tenantKey },
      message: {
        message_id: input.messageId,
        root_id: input.rootId ?? null,
        parent_id: input.parentId ?? null,
        create_time: now,
        update_time: now,
        chat_id: input.chatId,
        thread_id: input.threadId ?? null,
        chat_type: input.chatType,
        message_type: input.messageType,
        content: input.content,
        // No mentions: null, not [].
        mentions: input.mentions.length
          ? input.mentions.map(({ key, who }) => ({ key, id: idsOf(who), name: who.name, tenant_key: app.tenantKey }))
          : null,
        user_agent: null,
      },
    },
  };
}

export interface ClickInput {
  user: EventPerson;
  messageId: string;
  chatId: string;
  /** The clicked button's `value`, as the card carried it. */
  value: unknown;
}

export function clickEventOf(app: EventApp, input: ClickInput): ClickEventPayload {
  return {
    schema: '2.0',
    header: headerOf(app, 'card.action.trigger'),
    event: {
      operator: { tenant_key: app.tenantKey, user_id: null, open_id: input.user.openId, union_id: `on_${input.user.openId.slice(3)}` },
      token: `c-${hex32()}`,
      action: {
        value: input.value,
        tag: 'button',
        option: null,
        timezone: null,
        name: null,
        form_value: null,
        input_value: null,
        options: null,
        checked: null,
      },
      host: 'im_message',
      delivery_type: null,
      context: { url: null, preview_token: null, open_message_id: input.messageId, open_chat_id: input.chatId },
    },
  };
}

/** Over the long connection the header's token is empty (the connection itself is authenticated). */
export function overLongConnection<T extends { header: object }>(event: T): T {
  return { ...event, header: { ...event.header, token: '' } };
}
