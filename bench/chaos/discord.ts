// The chaos soak on Discord: the fake REST API and gateway (the process holding the receiver lease
// connects; the next one RESUMEs the session it recorded, and the gateway replays what it missed),
// DMs and guild channels where the bot is mentioned. Discord drops a click nobody acknowledged
// within 3 s (the holder was dead): the person clicks again.
import { FakeDiscord, type DChannel, type DUser, type StoredMessage } from '../../test/fakes/discord/index.ts';
import { Reclicker } from './clicker.ts';
import { APPROVAL_NEEDED, type SoakChat, type SoakPlatform } from './platform.ts';

interface DiscordChat extends SoakChat {
  user: DUser;
  channel: DChannel;
  group: boolean;
}

export class DiscordSoak implements SoakPlatform<DiscordChat> {
  readonly name = 'Discord';
  readonly #dc: FakeDiscord;
  readonly #chats: DiscordChat[] = [];
  /** The bot's messages by channel id, in order (the fake keeps one map of every message). */
  readonly #byChannel = new Map<string, string[]>();
  readonly #clicker = new Reclicker();

  private constructor(dc: FakeDiscord) {
    this.#dc = dc;
    const set = dc.messages.set.bind(dc.messages);
    dc.messages.set = (id: string, stored: StoredMessage) => {
      if (!dc.messages.has(id) && stored.message.author.id === dc.bot.id && !stored.ephemeral) {
        const list = this.#byChannel.get(stored.message.channel_id) ?? [];
        list.push(id);
        this.#byChannel.set(stored.message.channel_id, list);
      }
      return set(id, stored);
    };
  }

  static async start(): Promise<DiscordSoak> {
    return new DiscordSoak(await FakeDiscord.start());
  }

  get clicks(): { clicks: number; repeated: number } {
    return { clicks: this.#clicker.clicks, repeated: this.#clicker.repeatedClicks };
  }

  env(): Record<string, string> {
    return { DISCORD_BOT_TOKEN: this.#dc.token, DISCORD_API_ROOT: this.#dc.apiRoot, DISCORD_EDIT_INTERVAL: '1200ms' };
  }

  chat(index: number, group: boolean): DiscordChat {
    const user = this.#dc.user(`Person${index}`);
    const channel = group ? this.#dc.guild(`Team ${index}`).channels[0]! : this.#dc.dm(user);
    const chat = { label: `${group ? 'group' : 'private'} ${index}`, user, channel, group };
    this.#chats.push(chat);
    return chat;
  }

  say(chat: DiscordChat, text: string): void {
    this.#dc.say(chat.user, chat.channel, text, { mention: chat.group });
  }

  #messages(chat: DiscordChat): StoredMessage[] {
    return (this.#byChannel.get(chat.channel.id) ?? []).flatMap((id) => this.#dc.messages.get(id) ?? []);
  }

  texts(chat: DiscordChat): string[] {
    return this.#messages(chat).map((m) => m.message.content);
  }

  promptTexts(): string[] {
    return this.#chats.flatMap((chat) => this.#messages(chat).map((m) => m.versions[0] ?? '')).filter((t) => t.includes(APPROVAL_NEEDED));
  }

  approve(): void {
    for (const chat of this.#chats) {
      for (const { message } of this.#messages(chat)) {
        const approve = message.components.flatMap((row) => row.components ?? []).find((c) => c.label === 'Approve');
        if (!approve?.custom_id || !message.content.includes(APPROVAL_NEEDED) || !this.#clicker.due(message.id)) continue;
        this.#dc.click(chat.user, message, approve.custom_id);
      }
    }
  }

  close(): Promise<void> {
    return this.#dc.close();
  }
}
