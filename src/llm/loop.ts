import type { ToolContext, ToolRegistry } from '../tools/types.js';
import { autoCompact, type CompactionAttempts } from './compaction/auto-compaction.js';
import { denyingRegistry } from './compaction/denying-registry.js';
import { shouldAutoCompact } from './core/context-budget.js';
import { llmError } from './core/errors.js';
import type { StreamEvent } from './core/events.js';
import { cloneMessages, type Message, type ToolMessage } from './core/message.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation, ToolDefinition } from './core/provider.js';
import type { StreamOptions } from './core/stream-options.js';
import { promptTokens } from './core/usage.js';

/** Local view of the context size: an estimate corrected by provider-reported usage. */
export interface ContextGauge {
  estimate(messages: readonly Message[], tools: readonly ToolDefinition[]): number;
  /** A request covering `messageCount` messages reported this prompt size. */
  observe(promptTokens: number, messageCount: number, messages?: readonly Message[]): void;
  /** The history was replaced: forget the last observation. */
  reset(): void;
}

/** The budget the trigger checks, from src/llm/core/context-budget.ts. */
export interface LoopBudget {
  /** The effective context window (capacity or working window). */
  window: number;
  inputBudget: number;
  threshold: number;
  autoEnabled: boolean;
}

/** What the loop needs besides the adapter. */
export interface LoopEnv {
  cwd: string;
  permissions: ToolContext['permissions'];
  budget: LoopBudget;
  newGauge: () => ContextGauge;
  /** Model requests per stream before it stops with `max_turns`. */
  maxTurns: number;
}

/** A provider client: the one shared tool loop over a thin adapter. */
export interface ChatClient {
  readonly providerId: string;
  streamChat(request: ChatRequest, registry: ToolRegistry, options?: StreamOptions): AsyncGenerator<StreamEvent>;
}

export function createChatClient(adapter: ProviderAdapter, env: LoopEnv): ChatClient {
  return {
    providerId: adapter.id,
    async *streamChat(request, registry, options = {}) {
      let conversation: ProviderConversation;
      try {
        conversation = await adapter.open(request);
      } catch (err) {
        yield { type: 'error', error: llmError('other', (err as Error).message) };
        return;
      }
      yield* runToolLoop({ conversation, history: cloneMessages(request.messages), tools: request.tools, registry, options, env });
    },
  };
}

interface LoopRun {
  conversation: ProviderConversation;
  /** The generic history (system included) kept beside the native one: the compaction history. */
  history: Message[];
  tools: ToolDefinition[];
  registry: ToolRegistry;
  options: StreamOptions;
  env: LoopEnv;
}

/**
 * Request → stream → run tool calls in order → append results → next request, until the model
 * answers without tools. Before each request after a completed tool turn it may run a private
 * automatic compaction. Never throws: ends with one `done` or one `error` event.
 */
export async function* runToolLoop(run: LoopRun): AsyncGenerator<StreamEvent> {
  const { conversation, tools, options, env } = run;
  let history = run.history;
  const signal = options.signal ?? new AbortController().signal;
  const registry = options.disableToolCalls ? denyingRegistry(run.registry) : run.registry;
  const gauge = env.newGauge();
  const attempts: CompactionAttempts = { failures: 0, toolTurnsAtLastTry: -1, minEstimate: 0 };
  let toolTurns = 0;

  for (let turn = 0; ; turn++) {
    if (signal.aborted) {
      yield { type: 'error', error: llmError('cancelled', 'cancelled') };
      return;
    }
    if (toolTurns > 0) {
      const estimate = gauge.estimate(history, tools);
      const decision = shouldAutoCompact({
        oneShot: !!options.oneShot,
        disableAutoCompaction: !!options.disableAutoCompaction,
        newToolTurnCompleted: toolTurns > attempts.toolTurnsAtLastTry,
        suppressed: attempts.failures >= MAX_FAILED_ATTEMPTS || estimate < attempts.minEstimate,
        pendingState: conversation.hasPendingState(),
        autoEnabled: env.budget.autoEnabled,
        estimate,
        threshold: env.budget.threshold,
      });
      if (decision.run) {
        attempts.toolTurnsAtLastTry = toolTurns;
        const replacement = yield* autoCompact({
          conversation,
          history,
          tools,
          registry: run.registry,
          options,
          signal,
          estimateBefore: estimate,
          estimate: (messages) => env.newGauge().estimate(messages, tools),
          runChild: (child, childHistory, childOptions) =>
            runToolLoop({ conversation: child, history: childHistory, tools, registry: run.registry, options: childOptions, env: { ...env, maxTurns: COMPACTION_MAX_TURNS } }),
        });
        if (replacement) {
          conversation.replaceHistory(replacement);
          history = cloneMessages(replacement);
          gauge.reset();
          attempts.failures = 0;
          attempts.minEstimate = 0;
        } else {
          attempts.failures++;
          // ker's rule: wait until the context has grown by half the distance to the budget.
          attempts.minEstimate = estimate + Math.max(0, env.budget.inputBudget - estimate) / 2;
        }
        if (signal.aborted) continue;
      }
    }

    if (turn >= env.maxTurns) {
      yield { type: 'done', stopReason: 'max_turns' };
      return;
    }

    const sentCount = history.length;
    // Leave the answer room in the window: prompt + max output must fit (Anthropic and Bedrock refuse otherwise).
    const room = env.budget.window - gauge.estimate(history, tools) - OUTPUT_ROOM_MARGIN;
    const limits = { maxOutputTokens: Math.max(MIN_OUTPUT_TOKENS, room) };
    let ended: Extract<ModelTurnEvent, { type: 'turn_end' }> | undefined;
    for await (const ev of conversation.streamTurn(signal, limits)) {
      switch (ev.type) {
        case 'text_delta':
        case 'reasoning_delta':
          yield ev;
          break;
        case 'usage':
          gauge.observe(promptTokens(ev.usage), sentCount, history);
          yield ev;
          break;
        case 'error':
          yield ev;
          return;
        case 'turn_end':
          ended = ev;
          break;
      }
    }
    if (!ended) {
      yield { type: 'error', error: llmError(signal.aborted ? 'cancelled' : 'network', signal.aborted ? 'cancelled' : 'the provider stream ended without finishing the turn') };
      return;
    }
    history.push(ended.message);
    yield { type: 'message', message: ended.message };
    const calls = ended.message.tool_calls ?? [];
    if (calls.length === 0) {
      yield { type: 'done', stopReason: ended.stopReason === 'max_tokens' ? 'max_tokens' : ended.stopReason === 'other' ? 'other' : 'end_turn' };
      return;
    }

    const results: ToolMessage[] = [];
    for (const call of calls) {
      yield { type: 'tool_call_started', call };
      const result = signal.aborted
        ? { role: 'tool' as const, tool_call_id: call.id, name: call.name, content: 'cancelled', is_error: true }
        : await registry.execute(call, { cwd: env.cwd, signal, permissions: env.permissions });
      results.push(result);
      yield { type: 'tool_call_finished', call, result };
    }
    conversation.appendToolResults(results);
    for (const result of results) {
      history.push(result);
      yield { type: 'message', message: result };
    }
    toolTurns++;
  }
}

/** Tokens kept free beside prompt + output for estimation error. */
export const OUTPUT_ROOM_MARGIN = 1024;
/** The output cap never goes below this, even when the prompt leaves less room. */
export const MIN_OUTPUT_TOKENS = 1024;
/** Failed automatic compactions allowed per stream before it stops trying. */
export const MAX_FAILED_ATTEMPTS = 3;
/** Model requests a compaction child may make (a refused tool call costs one). */
export const COMPACTION_MAX_TURNS = 4;
