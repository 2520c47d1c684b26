/**
 * Consumes one controller stream (a chat turn or a manual compaction) and turns its events into
 * UI actions. Text deltas are batched (one dispatch per `batchMs`) and flushed before any other
 * event, so a checkpoint always commits exactly the text already on screen.
 */
import { describeRetryWait } from '../net/retry-fetch.js';
import { MANUAL_COMPACTION_STATUS, type ControllerEvent } from '../agent/session-controller.js';
import type { Usage } from '../core/usage.js';
import type { UiStore } from './state/ui-store.js';
import { STATUS_COMPACTING, STATUS_THINKING } from './state/ui-state.js';
import { clipOutput } from './card-output.js';
import { cardFor } from './tool-cards.js';

export interface TurnHandle {
  mode: 'chat' | 'compact';
  abort: AbortController;
  /** The running automatic compaction's cancel (from `auto_compaction_started`). */
  childCancel?: () => void;
  /** The user answered a permission prompt no: the turn stops after the denied call's result. */
  stopped?: 'denied';
}

/** The notice of a turn stopped by a "no" to a permission prompt. */
export const DENIED_STOP_NOTICE = 'Stopped: you said no. Tell the agent what to do instead.';

export interface TurnHooks {
  /** Provider-reported usage of one request (for the context gauge). */
  onUsage?(usage: Usage): void;
  /** History was replaced (automatic checkpoint or manual compaction). */
  onHistoryReplaced?(): void;
  /** The session's context measure now (what an automatic compaction is about to summarise). */
  measure?(): number;
  /** The clock for the loader's elapsed time (ms). */
  now?(): number;
}

export interface TurnResult {
  /** The stream ended with an error (cancel included). */
  failed: boolean;
  cancelled: boolean;
}

/** Default delta batching interval: about one frame. */
export const TEXT_BATCH_MS = 16;

/** The warning a turn's stop reason becomes on screen, if any: the one place for all of them. */
function stopNotice(ev: Extract<ControllerEvent, { type: 'done' }>, mode: TurnHandle['mode']): string | undefined {
  if (ev.stopReason === 'max_turns') return 'Stopped after the maximum number of tool turns (config maxTurns)';
  if (ev.stopReason === 'refusal') return ev.explanation ? `The model declined to answer: ${ev.explanation}` : 'The model declined to answer';
  if (ev.stopReason === 'max_tokens' && mode === 'chat') return 'The answer stopped at the output token limit';
  return undefined;
}

export async function runTurn(store: UiStore, handle: TurnHandle, events: AsyncIterable<ControllerEvent>, hooks: TurnHooks = {}, batchMs = TEXT_BATCH_MS): Promise<TurnResult> {
  const dispatch = store.dispatch;
  let buffered = '';
  let timer: NodeJS.Timeout | undefined;
  const flushText = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!buffered) return;
    const text = buffered;
    buffered = '';
    dispatch({ type: 'text', text });
  };
  const result: TurnResult = { failed: false, cancelled: false };
  const at = (hooks.now ?? Date.now)();
  dispatch({ type: 'turn-start', mode: handle.mode, status: handle.mode === 'compact' ? STATUS_COMPACTING : STATUS_THINKING, at });
  try {
    for await (const ev of events) {
      if (ev.type === 'text_delta') {
        buffered += ev.text;
        if (batchMs <= 0) flushText();
        else timer ??= setTimeout(flushText, batchMs);
        continue;
      }
      flushText();
      switch (ev.type) {
        case 'reasoning_delta':
          dispatch({ type: 'reasoning', text: ev.text });
          break;
        case 'tool_call_started':
          dispatch({ type: 'tool-start', card: cardFor(ev.call) });
          break;
        case 'tool_call_input_changed':
          dispatch({ type: 'tool-input', card: cardFor(ev.call) });
          break;
        case 'tool_call_finished':
          dispatch({ type: 'tool-end', id: ev.call.id, status: ev.result.is_error ? 'error' : 'done', output: clipOutput(ev.result.content) });
          // A "no" to a prompt stops the turn here: the denial is the call's result, the calls after it and the next request are cancelled.
          if (handle.stopped === 'denied') handle.abort.abort();
          break;
        case 'auto_compaction_started':
          handle.childCancel = ev.cancel;
          if (hooks.measure) dispatch({ type: 'context', tokens: hooks.measure() });
          dispatch({ type: 'auto-compaction', phase: 'started' });
          break;
        case 'auto_compaction_cancelled':
          handle.childCancel = undefined;
          dispatch({ type: 'auto-compaction', phase: 'cancelled' });
          break;
        case 'auto_compaction_failed':
          handle.childCancel = undefined;
          dispatch({ type: 'auto-compaction', phase: 'failed', reason: ev.reason });
          break;
        case 'auto_compaction_applied':
          handle.childCancel = undefined;
          dispatch({ type: 'auto-compaction', phase: 'applied' });
          break;
        case 'checkpoint':
          dispatch({ type: 'checkpoint' });
          hooks.onHistoryReplaced?.();
          break;
        case 'compaction_done':
          dispatch({ type: 'flush' });
          dispatch({ type: 'append', items: [{ kind: 'notice', text: MANUAL_COMPACTION_STATUS, tone: 'success' }] });
          hooks.onHistoryReplaced?.();
          break;
        case 'usage':
          dispatch({ type: 'output-usage', tokens: ev.usage.output });
          hooks.onUsage?.(ev.usage);
          break;
        case 'retry_wait':
          dispatch({ type: 'append', items: [{ kind: 'notice', text: describeRetryWait(ev.wait), tone: 'warning' }] });
          break;
        case 'error': {
          result.failed = true;
          dispatch({ type: 'flush' });
          const compact = handle.mode === 'compact';
          if (ev.error.kind === 'cancelled') {
            result.cancelled = true;
            const text = compact ? 'Compaction cancelled; history unchanged' : handle.stopped === 'denied' ? DENIED_STOP_NOTICE : 'Interrupted';
            dispatch({ type: 'append', items: [{ kind: 'notice', text, tone: handle.stopped === 'denied' ? 'warning' : 'muted' }] });
          } else {
            const message = compact && !/history unchanged/.test(ev.error.message) ? `${ev.error.message}; history unchanged` : ev.error.message;
            dispatch({ type: 'append', items: [{ kind: 'error', title: compact ? 'Compaction failed' : 'Error', message }] });
          }
          break;
        }
        case 'done': {
          const notice = stopNotice(ev, handle.mode);
          if (notice) {
            dispatch({ type: 'flush' });
            dispatch({ type: 'append', items: [{ kind: 'notice', text: notice, tone: 'warning' }] });
          }
          break;
        }
        default:
          break;
      }
    }
  } catch (err) {
    // The controller never throws by contract; a bug here must not leave the loader spinning.
    result.failed = true;
    flushText();
    dispatch({ type: 'flush' });
    dispatch({ type: 'append', items: [{ kind: 'error', title: 'Error', message: err instanceof Error ? err.message : String(err) }] });
  } finally {
    flushText();
    handle.childCancel = undefined;
    dispatch({ type: 'turn-end' });
  }
  return result;
}
