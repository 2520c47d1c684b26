import type { LiveSession } from '../../agent/open-session.js';
import { costOf, costWithoutCacheOf, priceOf } from '../../config/prices.js';
import type { Usage } from '../../core/usage.js';
import type { TurnOutcome } from './turn.js';

/** Why a run ended, for scripts: `success` is the only one with `is_error: false`. */
export type ResultSubtype = 'success' | 'error_max_turns' | 'error_refusal' | 'error_during_execution' | 'error_cancelled' | 'error_startup';

/**
 * The one result object of `--output-format json` (and the last event of `stream-json`). Its
 * fields are stable; see docs/cli.md. `total_cost_usd` is an estimate at list prices (null when
 * the model has no known price); `cost_without_cache_usd` prices cache reads and writes as plain
 * input, and `cache_savings_usd` is the difference (negative while cache writes cost more than
 * the reads saved).
 */
export interface RunResult {
  type: 'result';
  subtype: ResultSubtype;
  is_error: boolean;
  result: string;
  error: { kind: string; message: string } | null;
  /** Null when nothing was saved (the run failed before the model answered). */
  session_id: string | null;
  provider: string | null;
  model: string | null;
  /** The agent mode (`plan` or `build`); null when no session opened. */
  mode: 'plan' | 'build' | null;
  stop_reason: string | null;
  num_turns: number;
  duration_ms: number;
  compactions: number;
  usage: Usage;
  total_cost_usd: number | null;
  cost_without_cache_usd: number | null;
  cache_savings_usd: number | null;
  cost_is_estimate: true;
}

/** Exit code of a finished turn: 0 ok, 1 error (max turns and a declined answer included), 130 interrupted. */
export function exitCodeOf(outcome: Pick<TurnOutcome, 'failure' | 'stopReason'>): number {
  if (outcome.failure) return outcome.failure.kind === 'cancelled' ? 130 : 1;
  return subtypeOf(outcome) === 'success' ? 0 : 1;
}

export function subtypeOf(outcome: Pick<TurnOutcome, 'failure' | 'stopReason'>): ResultSubtype {
  if (outcome.failure) return outcome.failure.kind === 'cancelled' ? 'error_cancelled' : 'error_during_execution';
  if (outcome.stopReason === 'max_turns') return 'error_max_turns';
  return outcome.stopReason === 'refusal' ? 'error_refusal' : 'success';
}

/** The one line a declined answer gets: the service's explanation when it gave one. */
export function refusalMessage(explanation: string | undefined): string {
  return explanation ? `the model declined to answer: ${explanation}` : 'the model declined to answer';
}

/** The line that says why a turn that ran without a failure still did not succeed, if it did not. */
export function unfinishedMessage(outcome: Pick<TurnOutcome, 'failure' | 'stopReason' | 'explanation'>): string | undefined {
  const subtype = subtypeOf(outcome);
  if (subtype === 'error_max_turns') return MAX_TURNS_MESSAGE;
  if (subtype === 'error_refusal') return refusalMessage(outcome.explanation);
  return undefined;
}

/** The result of a turn that ran; `usage` is what the session spent (compaction included). */
export function turnResult(session: LiveSession, outcome: TurnOutcome, usage: Usage): RunResult {
  const subtype = subtypeOf(outcome);
  const unfinished = unfinishedMessage(outcome);
  const error: RunResult['error'] = outcome.failure
    ? { kind: outcome.failure.kind, message: outcome.failure.message }
    : unfinished
      ? { kind: subtype === 'error_max_turns' ? 'max_turns' : 'refusal', message: unfinished }
      : null;
  // Priced by the wire id when it has a list price, else by the model name.
  const priced = priceOf(session.resolved.wireId) ? session.resolved.wireId : session.model;
  const cost = costOf(priced, usage);
  const withoutCache = costWithoutCacheOf(priced, usage);
  return {
    type: 'result',
    subtype,
    is_error: subtype !== 'success',
    result: outcome.result,
    error,
    session_id: session.store.persisted ? session.sessionId : null,
    provider: session.provider,
    model: session.model,
    mode: session.mode.get(),
    stop_reason: outcome.stopReason ?? null,
    num_turns: outcome.numTurns,
    duration_ms: outcome.durationMs,
    compactions: outcome.compactions,
    usage,
    total_cost_usd: dollars(cost),
    cost_without_cache_usd: dollars(withoutCache),
    cache_savings_usd: cost === undefined || withoutCache === undefined ? null : dollars(withoutCache - cost),
    cost_is_estimate: true,
  };
}

const dollars = (v: number | undefined): number | null => (v === undefined ? null : Number(v.toFixed(10)));

/** The result of a run that failed before a turn could start (bad config, no key, bad model). */
export function startupResult(message: string, durationMs: number, kind = 'startup'): RunResult {
  return {
    type: 'result',
    subtype: 'error_startup',
    is_error: true,
    result: '',
    error: { kind, message },
    session_id: null,
    provider: null,
    model: null,
    mode: null,
    stop_reason: null,
    num_turns: 0,
    duration_ms: durationMs,
    compactions: 0,
    usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    total_cost_usd: null,
    cost_without_cache_usd: null,
    cache_savings_usd: null,
    cost_is_estimate: true,
  };
}

export const MAX_TURNS_MESSAGE = 'stopped after the maximum number of tool turns (--max-turns or config maxTurns)';
