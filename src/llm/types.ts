// The model-facing shapes the agent uses, independent of the SDK's own types.

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it (may be invalid). */
  arguments: string;
  /** Fields of the call the server sent beyond these (Gemini's `extra_content`), sent back as they came. */
  extra?: Record<string, unknown>;
}

/** A piece of a user message made of parts: text, or an image (a data: or https: URL). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; url: string };

export type ChatMessage =
  | { role: 'system'; content: string }
  /**
   * `parts`, when present, is what the model is sent (text and images, src/media); `content` is
   * then the same message as text alone (for token estimates and servers without images).
   */
  | { role: 'user'; content: string; parts?: ContentPart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** 'none' asks for a text answer even though tools are declared. */
  toolChoice?: 'auto' | 'none';
}

export interface StreamDelta {
  kind: 'text' | 'reasoning';
  text: string;
}

interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens served from the provider's prompt cache, when it reports them. */
  cachedTokens?: number;
  /** The configured model (by name) that answered (set by the model router). */
  model?: string;
}

export interface Completion {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  /** 'stop' | 'tool_calls' | 'length' | 'content_filter' | ... as the server reports it. */
  finishReason: string | null;
  usage?: TokenUsage;
}

/** The model server said it is busy; the client waits `retryInMs`, then asks again. */
export interface BusyWait {
  retryInMs: number;
  /** The attempt that was refused (1 = the first). */
  attempt: number;
  status?: number;
}

export interface CompleteOptions {
  signal?: AbortSignal;
  /** The session the request is for (src/media reads the session's cached images by it). */
  sessionId?: string;
  /** Something to tell the chat about this request (e.g. the model refused images). */
  onNotice?: (text: string) => void;
  onDelta?: (delta: StreamDelta) => void;
  onBusy?: (wait: BusyWait) => void;
  /**
   * The chat asking: picks its model (its /model choice, its channel's, or the default). With
   * `turnId`, the choice is read once per turn: every round of a turn asks the same model first.
   */
  chat?: { channel: string; chatId: string; turnId?: string };
  /** A model failed before answering and the next one of the fallback chain is asked. */
  onFallback?: (notice: { from: string; to: string; reason: string }) => void;
}

export interface LlmClient {
  readonly model: string;
  complete(request: CompletionRequest, options?: CompleteOptions): Promise<Completion>;
}
