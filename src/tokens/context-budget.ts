/**
 * Context budget math. Pure: no I/O, no clock. The trigger that reads it lives with the compaction
 * policy (src/compaction/policy.ts).
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
