import { cloneMessages, stripSystem, systemMessage, userMessage, type Message } from '../llm/core/message.js';
import type { ChatRequest, ToolDefinition } from '../llm/core/provider.js';
import type { StreamEvent } from '../llm/core/events.js';
import type { ChatClient } from '../llm/loop.js';
import { buildCompactionPrompt } from '../llm/prompts/compaction-prompts.js';
import type { ToolRegistry } from '../tools/types.js';

export interface AppStateOptions {
  client: ChatClient;
  registry: ToolRegistry;
  model: string;
  maxOutputTokens: number;
  thinkingBudget?: number;
  sessionId: string;
  /** Builds the system prompt; called once per turn so it is always fresh. */
  buildSystemPrompt: () => string;
  history?: Message[];
}

/**
 * The conversation without system messages, and the two requests made from it.
 *
 * Invariant: `history` never contains a system message. Every request prepends a freshly built
 * system prompt. AppState changes only through `appendMessage`, `replaceHistory` and
 * `applyCompaction`, which callers invoke after the matching records are durable.
 */
export class AppState {
  private history: Message[];
  private readonly tools: ToolDefinition[];

  constructor(private readonly opts: AppStateOptions) {
    this.history = stripSystem(cloneMessages(opts.history ?? []));
    this.tools = opts.registry.definitions();
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

  /** The system prompt a turn would send now (built fresh). */
  systemPrompt(): string {
    return this.opts.buildSystemPrompt();
  }

  /** The request a normal turn would send now (system prompt + history + `extra`). */
  buildRequest(extra: Message[] = []): ChatRequest {
    return {
      model: this.opts.model,
      messages: [systemMessage(this.opts.buildSystemPrompt()), ...cloneMessages(this.history), ...extra],
      tools: this.tools,
      maxOutputTokens: this.opts.maxOutputTokens,
      thinkingBudget: this.opts.thinkingBudget,
    };
  }

  /** A normal turn: appends the user's message to history and streams the agent's answer. */
  streamChat(input: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    this.appendMessage(userMessage(input));
    return this.opts.client.streamChat(this.buildRequest(), this.opts.registry, { sessionId: this.opts.sessionId, signal });
  }

  /**
   * Manual compaction: the same system prompt, tools and history as a normal turn plus one final
   * user message with the compaction prompt. Tool calls are refused; no nested compaction runs.
   * History is not touched.
   */
  streamCompact(focus?: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const request = this.buildRequest([userMessage(buildCompactionPrompt(focus))]);
    return this.opts.client.streamChat(request, this.opts.registry, {
      sessionId: this.opts.sessionId,
      signal,
      disableToolCalls: true,
      disableAutoCompaction: true,
    });
  }

  appendMessage(message: Message): void {
    if (message.role === 'system') return;
    this.history.push(structuredClone(message));
  }

  /** Take back the last message (a turn that never reached the model is not kept). */
  dropLastMessage(): void {
    this.history.pop();
  }

  /** Install a (system-free) replacement, e.g. after an automatic compaction. */
  replaceHistory(messages: readonly Message[]): void {
    this.history = stripSystem(cloneMessages(messages));
  }

  /** Replace history with exactly one user message holding `summary`. Rejects an empty summary. */
  applyCompaction(summary: string): Message[] {
    const text = summary.trim();
    if (!text) throw new Error('the compaction summary is empty');
    this.history = [userMessage(text)];
    return cloneMessages(this.history);
  }
}
