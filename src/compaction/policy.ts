/**
 * The compaction policy: the trigger (when an automatic attempt runs, checked before every model
 * request), how failures back off, and the caps that keep every path bounded. Pure: no I/O, no
 * clock. Both the tool loop and manual compaction read their limits from here.
 */

/** Failed automatic compactions allowed per stream before it stops trying. */
export const MAX_FAILED_ATTEMPTS = 3;
/** Summary requests one compaction may send: fallbacks, halvings and the stream retry included. */
export const MAX_SUMMARY_REQUESTS = 4;
/** How many times the budgeted document's budget is halved after a context-length refusal. */
export const MAX_HALVINGS = 3;
/** Model requests one summary request may take (a refused tool call costs one). */
export const COMPACTION_MAX_TURNS = 4;
/** Budgeted document: every tool result is cut to this many characters (head and tail kept). */
export const DOC_TOOL_RESULT_CHARS = 2000;
/** Budgeted document: every user message is cut to this many characters (head and tail kept). */
export const DOC_USER_MESSAGE_CHARS = 8000;
/** Pruning: the newest tool output kept whole, in estimated tokens. */
export const PRUNE_PROTECT_TOKENS = 40_000;
/** Pruning happens only when it frees at least this many estimated tokens. */
export const PRUNE_MIN_FREED_TOKENS = 20_000;
/** User turns at the end of the history that pruning never touches. */
export const PRUNE_PROTECTED_USER_TURNS = 2;
/** Artifact handles listed in the index appended to a summary (newest kept). */
export const MAX_INDEXED_ARTIFACTS = 60;

/**
 * What keeps failed automatic attempts bounded. The back-off outlives a stream (a chat session
 * is one stream per user turn, so it has to); the failure count is per stream.
 */
export interface AttemptState {
  /** Failed attempts in the current stream since the last success. */
  failures: number;
  /** After a failure, the estimate must reach this before trying again. */
  minEstimate: number;
  /** Messages the history held at the last failure: fewer means it was replaced since. */
  messagesAtFailure: number;
}

export function newAttemptState(): AttemptState {
  return { failures: 0, minEstimate: 0, messagesAtFailure: 0 };
}

/** A new stream of the same conversation: the back-off holds, the failure count starts again. */
export function streamStarted(state: AttemptState): AttemptState {
  return { ...state, failures: 0 };
}

/** Everything the trigger looks at before a model request. */
export interface TriggerInput {
  state: AttemptState;
  /** The stream is a one-shot exchange (itself a compaction or summary). */
  oneShot: boolean;
  /** The stream's options forbid automatic compaction. */
  disableAutoCompaction: boolean;
  /** The budget allows automatic compaction (`compaction.auto`, a positive threshold). */
  autoEnabled: boolean;
  /** The adapter holds provider-native state a compaction must not split. */
  pendingState: boolean;
  /** Messages of the request about to be sent (system included). */
  messages: number;
  /** Estimated input tokens of the request about to be sent. */
  estimate: number;
  /** Estimated input at or above which automatic compaction runs. */
  threshold: number;
}

/** Which condition decided; `threshold_reached` is the only one that runs a compaction. */
export type TriggerReason = 'one_shot' | 'disabled_for_stream' | 'disabled_by_policy' | 'suppressed' | 'pending_state' | 'below_threshold' | 'threshold_reached';

export interface TriggerDecision {
  run: boolean;
  reason: TriggerReason;
  /** One human-readable line, for logs and debugging. */
  detail: string;
}

/**
 * Before every model request (the first of a turn and the first after a resume included), in
 * order: not one-shot; not disabled for the stream or by policy; not suppressed after failures
 * (at most {@link MAX_FAILED_ATTEMPTS} per stream; after one, until the context has grown, see
 * {@link attemptFailed}, unless the history was replaced since); no pending provider-native
 * state; the estimate at or above the threshold.
 */
export function decideAutoCompaction(input: TriggerInput): TriggerDecision {
  const skip = (reason: TriggerReason, detail: string): TriggerDecision => ({ run: false, reason, detail });
  const { state } = input;
  if (input.oneShot) return skip('one_shot', 'one-shot stream');
  if (input.disableAutoCompaction) return skip('disabled_for_stream', 'automatic compaction disabled for this stream');
  if (!input.autoEnabled) return skip('disabled_by_policy', 'automatic compaction disabled by the compaction policy');
  if (state.failures >= MAX_FAILED_ATTEMPTS) return skip('suppressed', `${state.failures} failed attempts in this stream`);
  const replaced = input.messages < state.messagesAtFailure;
  if (!replaced && input.estimate < state.minEstimate) {
    return skip('suppressed', `after a failed attempt, waiting for the estimate ${input.estimate} to reach ${state.minEstimate}`);
  }
  if (input.pendingState) return skip('pending_state', 'the provider holds pending native state');
  if (!(input.estimate >= input.threshold)) return skip('below_threshold', `estimate ${input.estimate} is below the threshold ${input.threshold}`);
  return { run: true, reason: 'threshold_reached', detail: `estimate ${input.estimate} reached the threshold ${input.threshold}` };
}

/** A successful compaction clears the back-off. */
export function attemptSucceeded(state: AttemptState): AttemptState {
  return { ...state, failures: 0, minEstimate: 0, messagesAtFailure: 0 };
}

/**
 * After a failed attempt at `estimate` over `messages`: no new attempt until the context has
 * grown by half the remaining distance to the input budget, and at least by one token (over the
 * budget there is no distance left, yet the same request must not be retried unchanged).
 */
export function attemptFailed(state: AttemptState, estimate: number, inputBudget: number, messages: number): AttemptState {
  return {
    failures: state.failures + 1,
    minEstimate: estimate + Math.max(1, Math.ceil((inputBudget - estimate) / 2)),
    messagesAtFailure: messages,
  };
}

/**
 * Output tokens the session reserves for thinking: its configured budget when the output limit
 * holds it (below it), else 0 (the wires then leave thinking off for the session,
 * src/providers/kit/thinking-form.ts). Constant for the session, like the budget it sends.
 */
export function thinkingReserve(thinkingBudget: number | undefined, maxOutputTokens: number): number {
  return thinkingBudget !== undefined && thinkingBudget > 0 && thinkingBudget < maxOutputTokens ? thinkingBudget : 0;
}

/**
 * The trigger's threshold with the thinking budget counted as reserved output: the threshold the
 * window would have without the budget's share, `threshold × (window − reserve) / window`. A
 * request below it leaves the budget plus the margin a session without thinking has, scaled to
 * what the budget leaves; so does the nested summary request at it. The budget then never has to
 * shrink to fit, which would change the thinking parameters and drop the prompt cache; compacting
 * earlier is the price. Never below half of `threshold`: a budget too big for the window must not
 * compact before every request.
 */
export function thresholdWithReserve(threshold: number, window: number, reserve: number): number {
  if (reserve <= 0 || !(window > 0)) return threshold;
  return Math.max(Math.floor(threshold / 2), Math.floor((threshold * Math.max(0, window - reserve)) / window));
}

/** Output tokens a summary needs beside its request: Keen's five sections rarely take more. */
export const SUMMARY_OUTPUT_RESERVE = 2048;

/**
 * Whether the fork (`estimate` input tokens) leaves the summary its room in `window`. The loop caps
 * max_tokens at what the window leaves; an estimate that was too low is caught by the provider's
 * context-length answer, which falls back to the budgeted document.
 */
export function fitsSummariser(estimate: number, window: number): boolean {
  return estimate + SUMMARY_OUTPUT_RESERVE <= window;
}

/**
 * Tokens the budgeted document may use: the input budget (the window minus the safety margin of
 * at least 4,096 tokens, which leaves the summary its room) minus the fixed framing.
 */
export function documentBudget(inputBudget: number, framingTokens: number): number {
  return Math.max(1, inputBudget - framingTokens);
}

/** Errors worth one more try of the same summary request: nothing of it was shown to anyone. */
export function isTransientError(error: { kind: string; status?: number }): boolean {
  return error.kind === 'network' || (error.status !== undefined && error.status >= 500);
}
