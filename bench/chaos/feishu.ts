// The chaos soak on Feishu: the fake open platform, events by webhook (one process: the fake pushes
// to the process's HTTP listener) or by long connection (each process opens one; an event goes to
// one of them). An event not answered 200 within 3 s is pushed again; Feishu waits 15 s, 5 min, 1 h
// and 6 h, the soak 15 s each time (its runs are minutes long). A click nobody answered is lost:
// the person clicks again while the card still shows its buttons.
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeFeishu, type FeishuChat, type FeishuUser, type StoredMessage } from '../../test/fakes/feishu/index.ts';
import { Reclicker } from './clicker.ts';
import { APPROVAL_NEEDED, type SoakChat, type SoakPlatform } from './platform.ts';

export type FeishuMode = 'webhook' | 'ws';
const PUSH_AGAIN_MS = 15_000;
const PUSHES = 5;

interface FeishuSoakChat extends SoakChat {
  user: FeishuUser;
  chat: FeishuChat;
}

function textOf(content: StoredMessage['content']): string {
  if ('text' in content && typeof content.text === 'string') return content.text;
  return FakeFeishu.textOf({ content } as StoredMessage);
}

export class FeishuSoak implements SoakPlatform<FeishuSoakChat> {
  readonly name: string;
  readonly #fs: FakeFeishu;
  readonly #mode: FeishuMode;
  readonly #chats: FeishuSoakChat[] = [];
  readonly #byChat = new Map<string, string[]>();
  readonly #clicker = new Reclicker();
  readonly #clicking = new Set<string>();
  #pushing = true;
  /** Events given up on after every push failed (Feishu would push them hours later). */
  eventsGivenUp = 0;

  private constructor(fs: FakeFeishu, mode: FeishuMode) {
    this.#fs = fs;
    this.#mode = mode;
    this.name = `Feishu (${mode === 'ws' ? 'long connection' : 'webhook'})`;
    const set = fs.messages.set.bind(fs.messages);
    fs.messages.set = (id: string, stored: StoredMessage) => {
      if (!fs.messages.has(id) && stored.fromBot) {
        const list = this.#byChat.get(stored.chatId) ?? [];
        list.push(id);
        this.#byChat.set(stored.chatId, list);
      }
      return set(id, stored);
    };
  }

  static async start(mode: FeishuMode): Promise<FeishuSoak> {
    return new FeishuSoak(await FakeFeishu.start(), mode);
  }

  get clicks(): { clicks: number; repeated: number } {
    return { clicks: this.#clicker.clicks, repeated: this.#clicker.repeatedClicks };
  }

  env(): Record<string, string> {
    return {
      FEISHU_APP_ID: this.#fs.appId,
      FEISHU_APP_SECRET: this.#fs.appSecret,
      FEISHU_DOMAIN: this.#fs.baseUrl,
      FEISHU_MODE: this.#mode,
      FEISHU_VERIFICATION_TOKEN: this.#fs.verificationToken,
    };
  }

  started(_index: number, output: string): void {
    if (this.#mode !== 'webhook') return;
    const url = /HTTP\s+(http:\/\/\S+)/.exec(output)?.[1];
    if (!url) throw new Error(`no HTTP line in the ready block:\n${output}`);
    this.#fs.webhookUrl = `${url}/feishu/events`;
  }

  chat(index: number, group: boolean): FeishuSoakChat {
    const chat = {
      label: `${group ? 'group' : 'private'} ${index}`,
      user: this.#fs.user(`Person${index}`),
      chat: group ? this.#fs.group() : this.#fs.p2p(),
    };
    this.#chats.push(chat);
    return chat;
  }

  say(chat: FeishuSoakChat, text: string): void {
    const { event } = this.#fs.messageEvent(chat.user, chat.chat, text, chat.chat.type === 'group' ? { mention: [this.#fs.bot] } : {});
    void this.#deliver(event);
  }

  async #deliver(event: Parameters<FakeFeishu['push']>[0]): Promise<void> {
    for (let push = 1; push <= PUSHES; push++) {
      const delivery = await this.#fs.push(event, { attempts: 1 });
      if (delivery.status === 200) return;
      if (!this.#pushing) break;
      await sleep(PUSH_AGAIN_MS);
    }
    this.eventsGivenUp++;
  }

  #messages(chat: FeishuSoakChat): StoredMessage[] {
    return (this.#byChat.get(chat.chat.id) ?? []).flatMap((id) => this.#fs.messages.get(id) ?? []);
  }

  texts(chat: FeishuSoakChat): string[] {
    return this.#messages(chat).map((m) => textOf(m.content));
  }

  promptTexts(): string[] {
    return this.#chats
      .flatMap((chat) => this.#messages(chat).map((m) => textOf(m.versions[0] ?? m.content)))
      .filter((t) => t.includes(APPROVAL_NEEDED));
  }

  approve(): void {
    for (const chat of this.#chats) {
      for (const message of this.#messages(chat)) {
        const approve = FakeFeishu.buttonsOf(message).some((b) => b.text.content === 'Approve');
        if (!approve || this.#clicking.has(message.id) || !textOf(message.content).includes(APPROVAL_NEEDED)) continue;
        if (!this.#clicker.due(message.id)) continue;
        // A click is one callback: Feishu does not push it again (the person sees an error and may click again).
        this.#clicking.add(message.id);
        void this.#fs
          .push(this.#fs.clickEvent(chat.user, message.id, 'Approve'), { attempts: 1 })
          .catch(() => undefined)
          .finally(() => this.#clicking.delete(message.id));
      }
    }
  }

  quiesce(): void {
    this.#pushing = false;
  }

  close(): Promise<void> {
    return this.#fs.close();
  }
}
