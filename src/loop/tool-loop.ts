import type { ToolContext, ToolRegistry } from '../tools/types.js';
import { createAutoCompaction, newAttemptMemory, type AttemptMemory, type LoopCompaction } from '../compaction/auto-compaction.js';
import { NO_TOOLS } from '../compaction/summary-route.js';
import { denyingRegistry } from '../compaction/denying-registry.js';
import { callScheduler } from './concurrent-calls.js';
import { InputChanges } from './input-changes.js';
import { COMPACTION_MAX_TURNS, thinkingReserve, thresholdWithReserve } from '../compaction/policy.js';
import { llmError } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import { cloneMessages, userMessage, type Message, type ToolMessage } from '../core/message.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation, ToolDefinition } from '../core/provider.js';
import type { StreamOptions } from '../core/stream-options.js';
import { promptTokens } from '../core/usage.js';

/** Local view of the context size: an estimate corrected by provider-reported usage. */
export interface ContextGauge {
  estimate(messages: readonly Message[], tools: readonly ToolDefinition[]): number;
  /** A request covering `messageCount` messages reported this prompt size. */
  observe(promptTokens: number, messageCount: number, messages?: readonly Message[]): void;
  /** The history was replaced: forget the last observation. */
  reset(): void;
}

/** The budget the trigger checks, from src/tokens/context-budget.ts. */
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
  /** Compaction settings and the summariser; absent: plain compaction by the parent model. */
  compaction?: LoopCompaction;
}

/** A provider client: the one shared tool loop over a thin adapter. */
export interface ChatClient {
  readonly providerId: string;
  streamChat(request: ChatRequest, registry: ToolRegistry, options?: StreamOptions): AsyncGenerator<StreamEvent>;
}

export function createChatClient(adapter: ProviderAdapter, env: LoopEnv): ChatClient {
  // Each session's compaction back-off, kept from one stream (user turn) to the next.
  const backOff = new Map<string, AttemptMemory>();
  const attemptsOf = (options: StreamOptions): AttemptMemory | undefined => {
    if (!options.sessionId || options.oneShot || options.disableAutoCompaction) return undefined;
    const known = backOff.get(options.sessionId);
    if (known) return known;
    const memory = newAttemptMemory();
    backOff.set(options.sessionId, memory);
    return memory;
  };
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
      const attempts = attemptsOf(options);
      const history = cloneMessages(request.messages);
      // After the open, so the cache anchor stays at the request's end, before the instruction.
      if (options.instruction !== undefined) {
        conversation.appendUserText(options.instruction);
        history.push(userMessage(options.instruction));
      }
      yield* runToolLoop({ conversation, history, tools: request.tools, registry, options, env, adapter, request, attempts });
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
  /** The adapter and request the stream was opened with: a budgeted summary request opens a fresh conversation. */
  adapter?: ProviderAdapter;
  request?: ChatRequest;
  /** The session's compaction back-off across its streams; absent: this stream's own. */
  attempts?: AttemptMemory;
}

/** True when `next` holds other tool definitions than `sent` (registries hand out the same objects while unchanged). */
function toolListChanged(sent: readonly ToolDefinition[], next: readonly ToolDefinition[]): boolean {
  return sent !== next && (sent.length !== next.length || sent.some((d, i) => d !== next[i]));
}

/** A one-shot summary request on a fresh conversation of the same adapter (no tools). */
async function* runFresh(run: LoopRun, request: ChatRequest, options: StreamOptions): AsyncGenerator<StreamEvent> {
  if (!run.adapter) {
    yield { type: 'error', error: llmError('other', 'no adapter to open a summary request on') };
    return;
  }
  let conversation: ProviderConversation;
  try {
    conversation = await run.adapter.open(request);
  } catch (err) {
    yield { type: 'error', error: llmError('other', (err as Error).message) };
    return;
  }
  yield* runToolLoop({
    conversation,
    history: cloneMessages(request.messages),
    tools: [],
    registry: NO_TOOLS,
    options,
    env: { ...run.env, maxTurns: COMPACTION_MAX_TURNS },
    adapter: run.adapter,
    request,
  });
}

/**
 * Request → stream → run tool calls in order → append results → next request, until the model
 * answers without tools. Before every request (the first of a turn included, so a chat-only
 * session and a resumed one stay inside the window too) it may run a private automatic
 * compaction. Never throws: ends with one `done` or one `error` event.
 */
export async function* runToolLoop(run: LoopRun): AsyncGenerator<StreamEvent> {
  const { options, env } = run;
  let { conversation, tools } = run;
  let history = run.history;
  const signal = options.signal ?? new AbortController().signal;
  const registry = options.disableToolCalls ? denyingRegistry(run.registry) : run.registry;
  const gauge = env.newGauge();
  // The session's thinking budget is output every request must have room for (policy.ts).
  const reserve = thinkingReserve(run.request?.thinkingBudget, run.request?.maxOutputTokens ?? 0);
  const budget = { ...env.budget, threshold: thresholdWithReserve(env.budget.threshold, env.budget.window, reserve) };
  const autoCompaction = createAutoCompaction({
    attempts: run.attempts,
    budget,
    thinkingReserve: reserve,
    compaction: env.compaction,
    tools,
    options,
    signal,
    model: run.request?.model ?? '',
    maxOutputTokens: run.request?.maxOutputTokens ?? MIN_OUTPUT_TOKENS,
    estimate: (messages) => env.newGauge().estimate(messages, tools),
    runFork: (child, childHistory, childOptions) =>
      runToolLoop({ ...run, conversation: child, history: childHistory, options: childOptions, env: { ...env, maxTurns: COMPACTION_MAX_TURNS }, attempts: undefined }),
    runFresh: (req, childOptions) => runFresh(run, req, childOptions),
  });
  for (let turn = 0; ; turn++) {
    if (signal.aborted) {
      yield { type: 'error', error: llmError('cancelled', 'cancelled') };
      return;
    }
    if (turn >= env.maxTurns) {
      yield { type: 'done', stopReason: 'max_turns' };
      return;
    }
    // The budget is checked before every request: with no tool turn before it, the request that
    // follows a compaction is the user's message after the summary.
    const replacement = yield* autoCompaction.maybeCompact({ conversation, history, estimate: gauge.estimate(history, tools) });
    if (replacement) {
      conversation.replaceHistory(replacement);
      history = cloneMessages(replacement);
      gauge.reset();
    }
    if (signal.aborted) continue;

    // A tool list that changed during the turn (an MCP server ready after mcp.startupTimeoutMs)
    // goes out from the next request, the native history rebuilt from the generic one as a resume
    // does: a one-shot run gets the late server's tools at the cost of one cache miss.
    const current = turn > 0 && run.adapter && run.request ? registry.definitions() : tools;
    if (toolListChanged(tools, current)) {
      try {
        conversation = await run.adapter!.open({ ...run.request!, messages: history, tools: current });
        tools = current;
      } catch (err) {
        yield { type: 'error', error: llmError('other', (err as Error).message) };
        return;
      }
    }

    const sentCount = history.length;
    // Leave the answer room in the window: prompt + max output must fit (Anthropic and Bedrock refuse otherwise).
    // Never below the thinking budget plus an answer: the budget stays the same in every request.
    const room = env.budget.window - gauge.estimate(history, tools) - OUTPUT_ROOM_MARGIN;
    const limits = { maxOutputTokens: Math.max(MIN_OUTPUT_TOKENS + reserve, room) };
    let ended: Extract<ModelTurnEvent, { type: 'turn_end' }> | undefined;
    for await (const ev of conversation.streamTurn(signal, limits)) {
      switch (ev.type) {
        case 'text_delta':
        case 'reasoning_delta':
        case 'retry_wait':
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
    if (ended.stopReason === 'refusal') {
      // A declined turn ends here. Its tool calls are never run; each gets a result saying so, so
      // the history stays one the API accepts on the next turn.
      const unrun = (ended.message.tool_calls ?? []).map((c) => ({
        role: 'tool' as const,
        tool_call_id: c.id,
        name: c.name,
        content: 'not run: the model declined this turn',
        is_error: true,
      }));
      if (unrun.length > 0) {
        conversation.appendToolResults(unrun);
        for (const result of unrun) {
          history.push(result);
          yield { type: 'message', message: result };
        }
      }
      yield { type: 'done', stopReason: 'refusal', ...(ended.explanation ? { explanation: ended.explanation } : {}) };
      return;
    }
    const calls = ended.message.tool_calls ?? [];
    if (calls.length === 0) {
      yield { type: 'done', stopReason: ended.stopReason === 'max_tokens' ? 'max_tokens' : ended.stopReason === 'other' ? 'other' : 'end_turn' };
      return;
    }

    const results: ToolMessage[] = [];
    // A hook's changed input is announced while its call runs (before any permission question).
    const changes = new InputChanges();
    const runCall = callScheduler(calls, registry, { cwd: env.cwd, signal, permissions: env.permissions, onInputChanged: changes.report });
    for (const [index, call] of calls.entries()) {
      yield { type: 'tool_call_started', call };
      let result: ToolMessage;
      if (signal.aborted) result = { role: 'tool', tool_call_id: call.id, name: call.name, content: 'cancelled', is_error: true };
      else {
        const running = changes.during(call, runCall(index));
        for (let next = await running.next(); ; next = await running.next()) {
          if (next.done) {
            result = next.value;
            break;
          }
          const original = calls.find((c) => c.id === next.value.id) ?? call;
          yield { type: 'tool_call_input_changed', call: next.value, original };
        }
      }
      results.push(result);
      yield { type: 'tool_call_finished', call: changes.asRun(call), result };
    }
    conversation.appendToolResults(results);
    for (const result of results) {
      history.push(result);
      yield { type: 'message', message: result };
    }
  }
}

/** Tokens kept free beside prompt + output for estimation error. */
export const OUTPUT_ROOM_MARGIN = 1024;
/** The output cap never goes below this, even when the prompt leaves less room. */
export const MIN_OUTPUT_TOKENS = 1024;
