/**
 * The summary route, built in one place for both compaction paths: where the summary request
 * goes (the parent model's fork, the parent's budgeted document, or the `compaction.model`
 * summariser's document) and what each request looks like. The callers supply only what differs
 * between them: how the fork of the parent request is made (the loop forks its live conversation;
 * a manual compaction rebuilds the turn's request) and how a fresh request reaches the parent.
 */
import type { StreamEvent } from '../core/events.js';
import { systemMessage, userMessage } from '../core/message.js';
import type { ChatRequest } from '../core/provider.js';
import type { StreamOptions } from '../core/stream-options.js';
import type { ToolRegistry } from '../tools/types.js';
import type { SummaryRoute } from './summarise.js';

/** A client the summary request can go to (a ChatClient satisfies it). */
export interface SummaryClient {
  streamChat(request: ChatRequest, registry: ToolRegistry, options?: StreamOptions): AsyncIterable<StreamEvent>;
}

/** A separate summariser (`compaction.model`): its client, wire model, window and output limit. */
export interface Summariser {
  client: SummaryClient;
  model: string;
  inputBudget: number;
  maxOutputTokens: number;
}

/** A registry with no tools: the budgeted document request offers none. */
export const NO_TOOLS: ToolRegistry = {
  definitions: () => [],
  execute: async (call) => ({ role: 'tool', tool_call_id: call.id, name: call.name, content: 'No tools are available.', is_error: true }),
};

/** The summary request's stream options: one-shot, no nested compaction, tool calls refused. */
export function summaryOptions(sessionId: string | undefined, signal: AbortSignal): StreamOptions {
  return { sessionId, oneShot: true, disableAutoCompaction: true, disableToolCalls: true, signal };
}

/**
 * The budgeted-document request: the summariser system prompt, no tools, one user message. No
 * prompt-cache breakpoints: each document is new, so a cache write would never be read.
 */
export function documentRequest(model: string, maxOutputTokens: number, system: string, user: string): ChatRequest {
  return { model, messages: [systemMessage(system), userMessage(user)], tools: [], maxOutputTokens, promptCache: false };
}

/** The parent model as a summariser: its limits and its two ways to be asked. */
export interface ParentSummary {
  /** The parent model's context window (the fork must fit it) and input budget (the document's). */
  window: number;
  inputBudget: number;
  model: string;
  maxOutputTokens: number;
  /** The nested request: the parent request byte for byte plus `prompt` as one more user message. */
  fork(prompt: string, signal: AbortSignal): AsyncIterable<StreamEvent>;
  /** A fresh request to the parent model (the budgeted document). */
  fresh(request: ChatRequest, options: StreamOptions): AsyncIterable<StreamEvent>;
}

/**
 * The route `compact()` asks for: with a `compaction.model` summariser, only its budgeted
 * document (no fork: another model cannot share the parent's prompt cache); without one, the
 * parent's fork (when it fits, `forkEstimate`) and the parent's document.
 */
export function summaryRoute(parent: ParentSummary, summariser: Summariser | undefined, sessionId: string | undefined): (forkEstimate: number) => SummaryRoute {
  return (forkEstimate) => ({
    fork: summariser ? undefined : { estimate: forkEstimate, window: parent.window, send: (prompt, signal) => parent.fork(prompt, signal) },
    document: {
      inputBudget: summariser?.inputBudget ?? parent.inputBudget,
      send: (system, user, signal) =>
        summariser
          ? summariser.client.streamChat(documentRequest(summariser.model, summariser.maxOutputTokens, system, user), NO_TOOLS, summaryOptions(sessionId, signal))
          : parent.fresh(documentRequest(parent.model, parent.maxOutputTokens, system, user), summaryOptions(sessionId, signal)),
    },
  });
}
