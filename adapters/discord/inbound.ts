// discord.js Message / Interaction → neutral Inbound / Action fields. Pure: the adapter logs the
// outcome and talks to the core. A thread is its own session: chatId is the parent channel and
// threadId the thread (which is where the answer goes).
import {
  ChannelType,
  MessageFlags,
  MessageReferenceType,
  type APIInteractionGuildMember,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type GuildMember,
  type Message,
  type User,
} from 'discord.js';
import type { Action, Attachment, ChatType, Inbound } from '../../src/core/types.ts';

export interface AccessPolicy {
  allowedGuilds: ReadonlySet<string>;
  allowedChannels: ReadonlySet<string>;
  allowedUsers: ReadonlySet<string>;
}

interface Place {
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  guildId?: string;
}

type Classified<T> = { kind: 'accepted'; value: T } | { kind: 'ignored'; reason: string };

type ButtonPress = Omit<Action, 'reply'>;

/** The name people see: the server nickname, else the display name, else the username (any may be null or empty). */
function displayNameOf(user: User, member?: GuildMember | APIInteractionGuildMember | null): string {
  const nickname = member ? ('nickname' in member ? member.nickname : member.nick) : undefined;
  return nickname || user.globalName || user.username || user.id;
}

interface ChannelLike {
  id: string;
  type: ChannelType;
  parentId?: string | null;
}

function placeOf(channel: ChannelLike, guildId: string | null): Place {
  if (channel.type === ChannelType.DM || channel.type === ChannelType.GroupDM) return { chatId: channel.id, chatType: 'direct' };
  const isThread =
    channel.type === ChannelType.PublicThread ||
    channel.type === ChannelType.PrivateThread ||
    channel.type === ChannelType.AnnouncementThread;
  const guild = guildId ? { guildId } : {};
  if (isThread && channel.parentId) return { chatId: channel.parentId, chatType: 'group', threadId: channel.id, ...guild };
  return { chatId: channel.id, chatType: 'group', ...guild };
}

function refusedBy(access: AccessPolicy, place: Place, userId: string): string | undefined {
  if (place.chatType === 'group') {
    if (access.allowedGuilds.size > 0 && !(place.guildId && access.allowedGuilds.has(place.guildId))) {
      return `server ${place.guildId ?? '?'} is not in DISCORD_ALLOWED_GUILDS`;
    }
    const channelAllowed =
      access.allowedChannels.has(place.chatId) || (place.threadId !== undefined && access.allowedChannels.has(place.threadId));
    if (access.allowedChannels.size > 0 && !channelAllowed) return `channel ${place.chatId} is not in DISCORD_ALLOWED_CHANNELS`;
  }
  if (access.allowedUsers.size > 0 && !access.allowedUsers.has(userId)) return `user ${userId} is not in DISCORD_ALLOWED_USERS`;
  return undefined;
}

/** `<@id>` / `<@!id>` of the bot become `@Name`, so the model reads a name rather than a number. */
function readableMentions(text: string, botId: string, botName: string): string {
  return text.replace(new RegExp(`<@!?${botId}>`, 'g'), `@${botName}`);
}

function kindOf(contentType: string | null): Attachment['kind'] {
  const type = contentType?.split('/')[0];
  return type === 'image' || type === 'audio' || type === 'video' ? type : 'file';
}

/** Files and stickers; the ref is the attachment's CDN URL (or the sticker's id), which the adapter can fetch. */
function attachmentsOf(message: Message): Attachment[] {
  // A voice message (flag IsVoiceMessage, 8192) carries one .ogg attachment with duration_secs.
  const voice = message.flags.has(MessageFlags.IsVoiceMessage);
  const files = [...message.attachments.values()].map(
    (file): Attachment => ({
      kind: kindOf(file.contentType),
      ref: file.url,
      ...(file.name ? { name: file.name } : {}),
      ...(file.contentType ? { mimeType: file.contentType } : {}),
      ...(Number.isSafeInteger(file.size) && file.size >= 0 ? { size: file.size } : {}),
      ...(typeof file.duration === 'number' && Number.isFinite(file.duration) && file.duration >= 0
        ? { durationSeconds: file.duration }
        : {}),
      ...(voice ? { voice: true } : {}),
    }),
  );
  const stickers = [...message.stickers.values()].map(
    (sticker): Attachment => ({ kind: 'sticker', ref: sticker.id, ...(sticker.name ? { name: sticker.name } : {}) }),
  );
  return [...files, ...stickers];
}

export function classifyMessage(
  message: Message,
  botId: string,
  botName: string,
  access: AccessPolicy,
  channel: string,
): Classified<Inbound> {
  if (message.author.bot || message.webhookId) {
    return { kind: 'ignored', reason: message.author.id === botId ? 'my own message' : `message from another bot (${message.author.id})` };
  }
  if (message.system) return { kind: 'ignored', reason: 'system message' };
  const attachments = attachmentsOf(message);
  if (!message.content.trim() && attachments.length === 0)
    return { kind: 'ignored', reason: 'no text and no attachments (embeds only, or the MessageContent intent is missing)' };
  const place = placeOf(message.channel, message.guildId);
  const refusal = refusedBy(access, place, message.author.id);
  if (refusal) return { kind: 'ignored', reason: refusal };
  // A forward also points at another message (message_reference type 1), but answers nothing.
  const reference = message.reference?.type === MessageReferenceType.Forward ? undefined : message.reference;
  const repliedTo = reference?.messageId;
  const inbound: Inbound = {
    channel,
    chatId: place.chatId,
    chatType: place.chatType,
    ...(place.threadId ? { threadId: place.threadId } : {}),
    messageId: message.id,
    // Message ids are unique across Discord, so a re-delivered MESSAGE_CREATE carries the same one.
    eventId: message.id,
    sender: { id: message.author.id, displayName: displayNameOf(message.author, message.member), isBot: false },
    text: readableMentions(message.content, botId, botName),
    attachments,
    mentionsBot: message.mentions.users.has(botId),
    repliesToBot: repliedTo !== undefined && message.mentions.repliedUser?.id === botId,
    ...(repliedTo ? { replyToMessageId: repliedTo } : {}),
    receivedAt: message.createdAt,
  };
  return { kind: 'accepted', value: inbound };
}

/** Where a button press or slash command happened, or why the allowlists refuse it. */
function interactionPlace(
  interaction: ButtonInteraction | ChatInputCommandInteraction,
  access: AccessPolicy,
): ReturnType<typeof placeOf> | string {
  const source = interaction.channel ?? { id: interaction.channelId, type: interaction.guildId ? ChannelType.GuildText : ChannelType.DM };
  const place = placeOf(source, interaction.guildId);
  return refusedBy(access, place, interaction.user.id) ?? place;
}

export function classifyButton(interaction: ButtonInteraction, access: AccessPolicy, channel: string): Classified<ButtonPress> {
  if (interaction.user.bot) return { kind: 'ignored', reason: 'button pressed by a bot' };
  const placed = interactionPlace(interaction, access);
  if (typeof placed === 'string') return { kind: 'ignored', reason: placed };
  const place = placed;
  return {
    kind: 'accepted',
    value: {
      channel,
      chatId: place.chatId,
      chatType: place.chatType,
      ...(place.threadId ? { threadId: place.threadId } : {}),
      messageId: interaction.message.id,
      userId: interaction.user.id,
      displayName: displayNameOf(interaction.user, interaction.member),
      payload: interaction.customId,
      // The clicker's client language (every interaction carries it; messages do not).
      ...(interaction.locale ? { locale: interaction.locale } : {}),
    },
  };
}

/** A slash command as the text command the core understands: `/deny abc123 too risky`. */
function commandText(interaction: ChatInputCommandInteraction): string {
  const args = interaction.options.data.map((option) => String(option.value ?? '').trim()).filter(Boolean);
  return [`/${interaction.commandName}`, ...args].join(' ');
}

export function classifyCommand(interaction: ChatInputCommandInteraction, access: AccessPolicy, channel: string): Classified<Inbound> {
  if (interaction.user.bot) return { kind: 'ignored', reason: 'command from a bot' };
  const placed = interactionPlace(interaction, access);
  if (typeof placed === 'string') return { kind: 'ignored', reason: placed };
  const place = placed;
  return {
    kind: 'accepted',
    value: {
      channel,
      chatId: place.chatId,
      chatType: place.chatType,
      ...(place.threadId ? { threadId: place.threadId } : {}),
      messageId: interaction.id,
      eventId: interaction.id,
      sender: { id: interaction.user.id, displayName: displayNameOf(interaction.user, interaction.member), isBot: false },
      text: commandText(interaction),
      attachments: [],
      mentionsBot: true,
      repliesToBot: false,
      ...(interaction.locale ? { locale: interaction.locale } : {}),
      receivedAt: interaction.createdAt,
    },
  };
}
