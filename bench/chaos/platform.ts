// What the chaos soak needs of a chat platform's fake: the environment that points Parley at it,
// people who write in private and group chats, the bot's messages as they stand, and a clicker.

/** A chat of the soak, as its platform knows it. */
export interface SoakChat {
  /** A name for the report ("private 3", "group 2"). */
  label: string;
}

export interface SoakPlatform<Chat extends SoakChat = SoakChat> {
  readonly name: string;
  /** The channel's environment for every Parley process. */
  env(): Record<string, string>;
  /** A process started (its output so far, with the ready block) or was killed. */
  started?(index: number, output: string): void;
  killed?(index: number): void;
  /** A new chat: private, or a group where the bot is mentioned. */
  chat(index: number, group: boolean): Chat;
  /** A person of `chat` writes `text` (the platform delivers it as it would: pushed again, resumed...). */
  say(chat: Chat, text: string): void;
  /** The text of each message the bot shows in `chat` now, oldest first. */
  texts(chat: Chat): string[];
  /** The first text of every approval prompt the bot sent, in any chat. */
  promptTexts(): string[];
  /** One pass of the scripted clicker: approves the prompts it sees (as their requester). */
  approve(): void;
  /** Stops what the platform still does on its own (pushes again...). */
  quiesce?(): void;
  close(): Promise<void>;
}

export const APPROVAL_NEEDED = 'Approval needed';
