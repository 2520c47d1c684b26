/**
 * Context budget math and the automatic-compaction trigger. Pure: no I/O, no clock.
 *
 * The model's capacity (how much it accepts: a fact from the model catalog) is kept apart from the
 * compaction policy (how much of it the user chooses to use and when to compact: configuration).
 *
 *   window       = min(capacity.contextWindow, policy.workingWindow)
 *   input budget = window − max(4096, 5% of window)
 *   threshold    = floor(policy.threshold × input budget)          (window 100,000 → 95,000 → 85,500)
 */

/** What the model accepts, from the model catalog. */
export interface ModelCapacity {
  contextWindow: number;
  maxOutputTokens: number;
}

/** How the user wants the context managed (`compaction.*` in config). */
export interface CompactionPolicy {
  /** `compaction.auto`: automatic compaction inside the tool loop. */
  auto: boolean;
  /** `compaction.threshold`: fraction of the input budget at which automatic compaction runs. */
  threshold: number;
  /** `compaction.workingWindow`: a smaller window to work in than the model's capacity. */
  workingWindow?: number;
}

export const DEFAULT_COMPACTION_POLICY: CompactionPolicy = { auto: true, threshold: 0.9 };

/** The smallest safety margin: covers estimation error and provider-side framing. */
export const MIN_SAFETY_MARGIN = 4096;
/** The safety margin as a fraction of the window, when that is larger. */
export const SAFETY_MARGIN_FRACTION = 0.05;

export interface ContextBudget {
  /** The effective window: the capacity, or the smaller working window. */
  window: number;
  /** Input tokens a request may use: the window minus the safety margin. */
  inputBudget: number;
  /** Estimated input at or above which automatic compaction runs. */
  threshold: number;
  /** False when the policy turns it off or leaves nothing to compact toward. */
  autoEnabled: boolean;
  /** One line for the user when the policy cannot work as configured. */
  warning?: string;
}

/**
 * The budget for one model under one policy. Never throws: a window or threshold that leaves
 * no positive budget disables automatic compaction (with `warning`) instead of compacting on
 * every request.
 */
export function computeBudget(capacity: ModelCapacity, policy: CompactionPolicy): ContextBudget {
  const capacityWindow = positiveOrZero(capacity.contextWindow);
  const working = policy.workingWindow;
  const window = working !== undefined ? Math.min(capacityWindow, positiveOrZero(working)) : capacityWindow;
  const margin = Math.max(MIN_SAFETY_MARGIN, Math.ceil(window * SAFETY_MARGIN_FRACTION));
  const inputBudget = Math.max(0, window - margin);
  const fraction = Number.isFinite(policy.threshold) ? Math.min(policy.threshold, 1) : 0;
  // The epsilon keeps 0.9 × 95,000 at 85,500 despite binary floating point.
  const threshold = Math.max(0, Math.floor(fraction * inputBudget + 1e-9));

  const budget: ContextBudget = { window, inputBudget, threshold, autoEnabled: policy.auto };
  if (!policy.auto) return budget;

  if (inputBudget <= 0) {
    const source = working !== undefined && working < capacityWindow ? `compaction.workingWindow ${fmt(working)}` : `the model's context window ${fmt(capacity.contextWindow)}`;
    budget.autoEnabled = false;
    budget.warning = `automatic compaction is off: ${source} leaves no input budget after the ${fmt(margin)}-token safety margin`;
  } else if (threshold <= 0) {
    budget.autoEnabled = false;
    budget.warning = `automatic compaction is off: compaction.threshold ${fmt(policy.threshold)} gives a threshold of 0 tokens`;
  } else if (policy.threshold > 1) {
    budget.warning = `compaction.threshold ${fmt(policy.threshold)} is above 1; using 1 (the whole input budget)`;
  }
  return budget;
}

function positiveOrZero(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function fmt(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : String(n);
}

/** Everything the trigger looks at before a model request in the tool loop. */
export interface AutoCompactInput {
  /** The stream is a one-shot exchange (itself a compaction or summary). */
  oneShot: boolean;
  /** The stream's options forbid automatic compaction. */
  disableAutoCompaction: boolean;
  /** At least one tool turn completed since the last attempt (or since the stream began). */
  newToolTurnCompleted: boolean;
  /** A failed attempt suppresses retries until the history has advanced enough. */
  suppressed: boolean;
  /** The adapter holds provider-native state a compaction must not split. */
  pendingState: boolean;
  /** From {@link ContextBudget.autoEnabled}: the policy allows automatic compaction. */
  autoEnabled: boolean;
  /** Estimated input tokens of the request about to be sent. */
  estimate: number;
  /** From {@link ContextBudget.threshold}. */
  threshold: number;
}

/** Which condition decided; `threshold_reached` is the only one that runs a compaction. */
export type AutoCompactReason =
  | 'one_shot'
  | 'disabled_for_stream'
  | 'disabled_by_policy'
  | 'no_new_tool_turn'
  | 'suppressed'
  | 'pending_state'
  | 'below_threshold'
  | 'threshold_reached';

export interface AutoCompactDecision {
  run: boolean;
  reason: AutoCompactReason;
  /** One human-readable line, for logs and debugging. */
  detail: string;
}

/**
 * The spec's trigger, checked in order: not one-shot; auto compaction not disabled for the stream
 * or by policy; a new tool turn completed; not suppressed for the unchanged history; no pending
 * provider-native state; estimate at or above the threshold.
 */
export function shouldAutoCompact(input: AutoCompactInput): AutoCompactDecision {
  const skip = (reason: AutoCompactReason, detail: string): AutoCompactDecision => ({ run: false, reason, detail });
  if (input.oneShot) return skip('one_shot', 'one-shot stream');
  if (input.disableAutoCompaction) return skip('disabled_for_stream', 'automatic compaction disabled for this stream');
  if (!input.autoEnabled) return skip('disabled_by_policy', 'automatic compaction disabled by the compaction policy');
  if (!input.newToolTurnCompleted) return skip('no_new_tool_turn', 'no new tool turn since the last check');
  if (input.suppressed) return skip('suppressed', 'suppressed after a failed attempt until the history advances');
  if (input.pendingState) return skip('pending_state', 'the provider holds pending native state');
  if (!(input.estimate >= input.threshold)) {
    return skip('below_threshold', `estimate ${input.estimate} is below the threshold ${input.threshold}`);
  }
  return { run: true, reason: 'threshold_reached', detail: `estimate ${input.estimate} reached the threshold ${input.threshold}` };
}
