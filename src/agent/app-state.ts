import { compact, type CompactionOutcome } from '../compaction/compactor.js';
import { NO_EXTRAS, type CompactionSettings } from '../compaction/settings.js';
import { NO_TOOLS, summaryRoute, type Summariser } from '../compaction/summary-route.js';
import { cloneMessages, stripSystem, systemMessage, userMessage, type Message, type ToolResultImage } from '../core/message.js';
import type { ChatRequest, ToolDefinition } from '../core/provider.js';
import type { StreamEvent } from '../core/events.js';
import type { StreamOptions } from '../core/stream-options.js';
import { estimateMessage, estimateRequest, estimateText } from '../tokens/token-estimator.js';
import type { ChatClient } from '../loop/tool-loop.js';
import { nextPrompt, renderSections, type PromptReminder, type PromptSection, type PromptState } from '../project/prompt-sections.js';
import type { ToolRegistry } from '../tools/types.js';

/** What manual compaction needs besides the client: settings, the parent's window, a summariser. */
export interface AppCompaction {
  settings: CompactionSettings;
  /** The parent model's window and input budget. */
  window: number;
  inputBudget: number;
  /** `compaction.model`, when set: summaries go there (budgeted document, its own window). */
  summariser?: Summariser;
}

export interface AppStateOptions {
  client: ChatClient;
  registry: ToolRegistry;
  model: string;
  maxOutputTokens: number;
  /**
   * false: the model takes no images (a session resumed or switched onto it may hold some): each
   * stored image is left out of the request, a user image named by a line in its message's text
   * (a tool result's text names its images already). The history keeps them.
   */
  images?: boolean;
  thinkingBudget?: number;
  sessionId: string;
  /**
   * Awaited before a normal turn's request is built (MCP servers still starting get until
   * `mcp.startupTimeoutMs` to join the tool list).
   */
  prepareRequest?: (signal?: AbortSignal) => Promise<void>;
  /**
   * The system prompt as it would read now, called once per turn. Sections: the first turn's
   * become the session's system prompt, and later changes go into a reminder ahead of the user's
   * text (src/project/prompt-sections.ts). A plain string is one fixed section: any change
   * writes a new system prompt.
   */
  buildSystemPrompt: () => string | PromptSection[];
  /** Words a reminder's removed section (default: its heading and `(removed)`). */
  removedSection?: (key: string, old: string) => string;
  /** The prompt a resumed session goes on with (`promptStateFromRecords`). */
  prompt?: PromptState;
  history?: Message[];
  /** Absent: no tail, no pruning, the parent model with an unbounded window (library default). */
  compaction?: AppCompaction;
}

/** What a turn's `user_message` record carries besides the message (src/transcript/records.ts). */
export interface TurnPrompt {
  system?: PromptSection[];
  reminder?: PromptReminder;
}

/**
 * The conversation without system messages, and the two requests made from it.
 *
 * Invariant: `history` never contains a system message. Every request prepends the session's
 * system prompt, written at its first turn and kept byte-identical after (so the provider's
 * prompt cache reads the conversation); what changed since reaches the model as a reminder in
 * the turn's user message. AppState changes only through `appendMessage`, `replaceHistory` and
 * `applyCompaction`, which callers invoke after the matching records are durable.
 */
export class AppState {
  private history: Message[];
  private prompt: PromptState | undefined;
  /** The prompt state before the turn in progress, and what its record carries. */
  private turn: { before: PromptState | undefined; record: TurnPrompt } | undefined;
  constructor(private readonly opts: AppStateOptions) {
    this.history = stripSystem(cloneMessages(opts.history ?? []));
    this.prompt = opts.prompt;
  }

  /** The registry's tools now: MCP servers may join or change their lists (between requests too: the loop re-reads them). */
  private get tools(): ToolDefinition[] {
    return this.opts.registry.definitions();
  }

  get messages(): readonly Message[] {
    return this.history;
  }

  get sessionId(): string {
    return this.opts.sessionId;
  }

  get client(): ChatClient {
    return this.opts.client;
  }

  get toolDefinitions(): readonly ToolDefinition[] {
    return this.tools;
  }

  /** The system prompt requests send: the session's, or (before its first turn) one built now. */
  systemPrompt(): string {
    return renderSections(this.prompt?.snapshot ?? this.freshSections());
  }

  /** The session's system prompt as sections (a compaction record keeps it); undefined before its first turn. */
  get promptSnapshot(): PromptSection[] | undefined {
    return this.prompt?.snapshot;
  }

  /** What the current turn's `user_message` record carries besides the message. */
  get turnPrompt(): TurnPrompt {
    return this.turn?.record ?? {};
  }

  private freshSections(): PromptSection[] {
    const built = this.opts.buildSystemPrompt();
    return typeof built === 'string' ? [{ key: 'base', text: built }] : built;
  }

  /** Settles the turn's prompt: the session's (or a new one), and a reminder of what changed in the user message just appended. */
  private beginTurn(): void {
    const step = nextPrompt(this.prompt, this.freshSections(), this.opts.removedSection ?? ((_key, old) => `${old.split('\n', 1)[0]}\n(removed)`));
    const record: TurnPrompt = {};
    if (step.system) record.system = step.system;
    if (step.reminder) record.reminder = step.reminder;
    this.turn = { before: this.prompt, record };
    this.prompt = step.state;
    const last = this.history.at(-1);
    if (step.reminder && last?.role === 'user') this.history[this.history.length - 1] = { ...last, content: step.reminder.text + last.content };
  }

  /** The request a normal turn would send now (system prompt + history + `extra`). */
  buildRequest(extra: Message[] = []): ChatRequest {
    return {
      model: this.opts.model,
      messages: [systemMessage(this.systemPrompt()), ...withoutImages(cloneMessages(this.history), this.opts.images === false), ...extra],
      tools: this.tools,
      maxOutputTokens: this.opts.maxOutputTokens,
      thinkingBudget: this.opts.thinkingBudget,
      sessionId: this.opts.sessionId,
    };
  }

  /** A normal turn: appends the user's message to history and streams the agent's answer. */
  streamChat(input: string, signal?: AbortSignal, images?: readonly ToolResultImage[]): AsyncGenerator<StreamEvent> {
    this.appendMessage(userMessage(input, images));
    this.turn = undefined;
    if (!this.opts.prepareRequest) {
      this.beginTurn();
      return this.opts.client.streamChat(this.buildRequest(), this.opts.registry, { sessionId: this.opts.sessionId, signal });
    }
    return this.streamPrepared(this.opts.prepareRequest, signal);
  }

  private async *streamPrepared(prepare: (signal?: AbortSignal) => Promise<void>, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    await prepare(signal);
    this.beginTurn();
    yield* this.opts.client.streamChat(this.buildRequest(), this.opts.registry, { sessionId: this.opts.sessionId, signal });
  }

  /**
   * Manual compaction through the one compaction module: the normal turn's request plus one user
   * message with the compaction prompt when it fits (tools refused, no nested compaction), the
   * budgeted document otherwise or after a context-length refusal. Streams the summary visibly and
   * returns the outcome. History is not touched: the caller applies the replacement.
   */
  async *streamCompact(focus?: string, signal?: AbortSignal): AsyncGenerator<StreamEvent, CompactionOutcome> {
    const cfg = this.opts.compaction;
    const request = this.buildRequest();
    const sessionId = this.opts.sessionId;
    // The fork is this turn's request plus the prompt, so it stays a prompt-cache hit.
    const parent = {
      window: cfg?.window ?? Number.POSITIVE_INFINITY,
      inputBudget: cfg?.inputBudget ?? Number.MAX_SAFE_INTEGER,
      model: this.opts.model,
      maxOutputTokens: this.opts.maxOutputTokens,
      fork: (prompt: string, s: AbortSignal) =>
        this.opts.client.streamChat(this.buildRequest(), this.opts.registry, { sessionId, signal: s, disableToolCalls: true, disableAutoCompaction: true, instruction: prompt }),
      fresh: (req: ChatRequest, options: StreamOptions) => this.opts.client.streamChat(req, NO_TOOLS, options),
    };
    return yield* compact({
      history: request.messages,
      mode: 'manual',
      settings: cfg?.settings ?? NO_EXTRAS,
      focus,
      countText: estimateText,
      countMessage: estimateMessage,
      tokensBefore: estimateRequest(request),
      estimate: (messages) => estimateRequest({ messages, tools: this.tools }),
      route: summaryRoute(parent, cfg?.summariser, sessionId),
      visible: true,
      signal: signal ?? new AbortController().signal,
    });
  }

  appendMessage(message: Message): void {
    if (message.role === 'system') return;
    this.history.push(structuredClone(message));
  }

  /** Take back the last message (a turn that never reached the model is not kept). */
  dropLastMessage(): void {
    this.history.pop();
    // The turn's reminder never reached the model: what it knows is what it knew before.
    if (this.turn) this.prompt = this.turn.before;
    this.turn = undefined;
  }

  /**
   * Install a (system-free) replacement, e.g. after an automatic compaction. Reminders in the old
   * history may be gone: what the model knows falls back to the system prompt.
   */
  replaceHistory(messages: readonly Message[]): void {
    this.history = stripSystem(cloneMessages(messages));
    if (this.prompt) this.prompt = { snapshot: this.prompt.snapshot, known: this.prompt.snapshot };
  }
}

/** `messages` (a fresh copy) without their images when `strip`, each user image named by a line. */
function withoutImages(messages: Message[], strip: boolean): Message[] {
  if (!strip) return messages;
  return messages.map((m) => {
    if ((m.role !== 'user' && m.role !== 'tool') || !m.images?.length) return m;
    const { images, ...rest } = m;
    if (m.role === 'tool') return rest as Message;
    const lines = images.map((i) => `[image: ${i.media_type}, ${(Math.floor((i.data.length * 3) / 4) / 1024).toFixed(1)} KB — not sent: this model takes no images]`);
    return { ...rest, content: [m.content, ...lines].filter((s) => s !== '').join('\n') } as Message;
  });
}
