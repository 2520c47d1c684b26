/**
 * The compaction policy: when an automatic attempt may run, how failures back off, and the caps
 * that keep every path bounded. Pure: no I/O, no clock. Both the tool loop and manual compaction
 * read their limits from here.
 */
import { shouldAutoCompact, type AutoCompactDecision } from '../tokens/context-budget.js';

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

/** Per-stream bookkeeping that keeps failed automatic attempts bounded. */
export interface AttemptState {
  failures: number;
  /** Tool turns completed when the last attempt ran; a new attempt needs a newer tool turn. */
  toolTurnsAtLastTry: number;
  /** After a failure, the estimate must reach this before trying again. */
  minEstimate: number;
}

export function newAttemptState(): AttemptState {
  return { failures: 0, toolTurnsAtLastTry: -1, minEstimate: 0 };
}

export interface TriggerInput {
  state: AttemptState;
  oneShot: boolean;
  disableAutoCompaction: boolean;
  autoEnabled: boolean;
  pendingState: boolean;
  toolTurns: number;
  estimate: number;
  threshold: number;
}

/** The design's trigger plus the bounded-retry rule: at most {@link MAX_FAILED_ATTEMPTS} failures. */
export function decideAutoCompaction(input: TriggerInput): AutoCompactDecision {
  const { state } = input;
  return shouldAutoCompact({
    oneShot: input.oneShot,
    disableAutoCompaction: input.disableAutoCompaction,
    newToolTurnCompleted: input.toolTurns > state.toolTurnsAtLastTry,
    suppressed: state.failures >= MAX_FAILED_ATTEMPTS || input.estimate < state.minEstimate,
    pendingState: input.pendingState,
    autoEnabled: input.autoEnabled,
    estimate: input.estimate,
    threshold: input.threshold,
  });
}

/** The state after an attempt started at `toolTurns`. */
export function attemptStarted(state: AttemptState, toolTurns: number): AttemptState {
  return { ...state, toolTurnsAtLastTry: toolTurns };
}

/** A successful compaction clears the back-off. */
export function attemptSucceeded(state: AttemptState): AttemptState {
  return { ...state, failures: 0, minEstimate: 0 };
}

/**
 * ker's rule after a failed attempt: no new attempt until the context has grown by half the
 * remaining distance to the input budget (and a new tool turn completed).
 */
export function attemptFailed(state: AttemptState, estimate: number, inputBudget: number): AttemptState {
  return { ...state, failures: state.failures + 1, minEstimate: estimate + Math.max(0, inputBudget - estimate) / 2 };
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
