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
import { cardFor, clipOutput } from './tool-cards.js';

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
}

export interface TurnResult {
  /** The stream ended with an error (cancel included). */
  failed: boolean;
  cancelled: boolean;
}

/** Default delta batching interval: about one frame. */
export const TEXT_BATCH_MS = 16;

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
  dispatch({ type: 'turn-start', mode: handle.mode, status: handle.mode === 'compact' ? STATUS_COMPACTING : STATUS_THINKING });
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
        case 'tool_call_started':
          dispatch({ type: 'tool-start', card: cardFor(ev.call) });
          break;
        case 'tool_call_finished':
          dispatch({ type: 'tool-end', id: ev.call.id, status: ev.result.is_error ? 'error' : 'done', output: clipOutput(ev.result.content) });
          // A "no" to a prompt stops the turn here: the denial is the call's result, the calls after it and the next request are cancelled.
          if (handle.stopped === 'denied') handle.abort.abort();
          break;
        case 'auto_compaction_started':
          handle.childCancel = ev.cancel;
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
        case 'done':
          if (ev.stopReason === 'max_turns') {
            dispatch({ type: 'flush' });
            dispatch({ type: 'append', items: [{ kind: 'notice', text: 'Stopped after the maximum number of tool turns (config maxTurns)', tone: 'warning' }] });
          } else if (ev.stopReason === 'max_tokens' && handle.mode === 'chat') {
            dispatch({ type: 'flush' });
            dispatch({ type: 'append', items: [{ kind: 'notice', text: 'The answer stopped at the output token limit', tone: 'warning' }] });
          }
          break;
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
