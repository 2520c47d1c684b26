import type { LiveSession } from '../../agent/open-session.js';
import { costOf } from '../../config/prices.js';
import type { Usage } from '../../core/usage.js';
import type { TurnOutcome } from './turn.js';

/** Why a run ended, for scripts: `success` is the only one with `is_error: false`. */
export type ResultSubtype = 'success' | 'error_max_turns' | 'error_during_execution' | 'error_cancelled' | 'error_startup';

/**
 * The one result object of `--output-format json` (and the last event of `stream-json`). Its
 * fields are stable; see docs/cli.md. `total_cost_usd` is an estimate at list prices (null when
 * the model has no known price).
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
  cost_is_estimate: true;
}

/** Exit code of a finished turn: 0 ok, 1 error (max turns included), 130 interrupted. */
export function exitCodeOf(outcome: Pick<TurnOutcome, 'failure' | 'stopReason'>): number {
  if (outcome.failure) return outcome.failure.kind === 'cancelled' ? 130 : 1;
  return outcome.stopReason === 'max_turns' ? 1 : 0;
}

export function subtypeOf(outcome: Pick<TurnOutcome, 'failure' | 'stopReason'>): ResultSubtype {
  if (outcome.failure) return outcome.failure.kind === 'cancelled' ? 'error_cancelled' : 'error_during_execution';
  return outcome.stopReason === 'max_turns' ? 'error_max_turns' : 'success';
}

/** The result of a turn that ran; `usage` is what the session spent (compaction included). */
export function turnResult(session: LiveSession, outcome: TurnOutcome, usage: Usage): RunResult {
  const subtype = subtypeOf(outcome);
  const error: RunResult['error'] = outcome.failure
    ? { kind: outcome.failure.kind, message: outcome.failure.message }
    : subtype === 'error_max_turns'
      ? { kind: 'max_turns', message: MAX_TURNS_MESSAGE }
      : null;
  const cost = costOf(session.resolved.wireId, usage) ?? costOf(session.model, usage);
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
    total_cost_usd: cost === undefined ? null : Number(cost.toFixed(10)),
    cost_is_estimate: true,
  };
}

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
    cost_is_estimate: true,
  };
}

export const MAX_TURNS_MESSAGE = 'stopped after the maximum number of tool turns (--max-turns or config maxTurns)';
