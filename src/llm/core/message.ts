/**
 * The generic conversation model shared by every provider, the session store and AppState.
 *
 * Messages are persisted as JSON, so their keys are stable and lower-case (snake_case). Never
 * rename a key: old transcripts must keep loading.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call requested by the assistant. `args` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Provider reasoning kept so a tool loop can be replayed faithfully (Anthropic thinking with its
 * signature, Responses reasoning items with encrypted content). `provider` names the wire API that
 * produced it; other providers ignore it.
 */
export interface ReasoningPart {
  provider: string;
  text: string;
  signature?: string;
  encrypted_content?: string;
  id?: string;
  redacted?: boolean;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /**
   * Set on a compacted summary: 1 = a summary of narrative history, 2 = a summary merged with a
   * previous one. Providers ignore it; compaction reads it to merge instead of re-summarising.
   */
  summary_level?: 1 | 2;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: ToolCall[];
  reasoning?: ReasoningPart[];
}

export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  name: string;
  content: string;
  is_error?: boolean;
  /** The session artifact holding this output in full (`artifact#N`), when one was stored. */
  artifact_ref?: number;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export function systemMessage(content: string): SystemMessage {
  return { role: 'system', content };
}

export function userMessage(content: string): UserMessage {
  return { role: 'user', content };
}

/** Deep copy, so a snapshot can never be mutated through a shared reference. */
export function cloneMessages(messages: readonly Message[]): Message[] {
  return structuredClone(messages as Message[]);
}

/** The conversation without system messages: what AppState and the session store hold. */
export function stripSystem(messages: readonly Message[]): Message[] {
  return messages.filter((m) => m.role !== 'system');
}

export function systemPart(messages: readonly Message[]): SystemMessage[] {
  return messages.filter((m): m is SystemMessage => m.role === 'system');
}

/** The newest user message's text, or '' when there is none. */
export function latestUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user') return m.content;
  }
  return '';
}
