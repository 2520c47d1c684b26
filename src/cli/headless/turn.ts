import type { LiveSession } from '../../agent/open-session.js';
import type { ControllerEvent } from '../../agent/session-controller.js';
import type { LlmError } from '../../core/errors.js';
import type { ToolResultImage } from '../../core/message.js';
import type { StopReason } from '../../core/events.js';
import { llmError } from '../../core/errors.js';
import { errorText } from '../../errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How one headless turn ended. */
export interface TurnOutcome {
  /** The visible answer: pre-compaction text + post-compaction text, trailing newlines cut. */
  result: string;
  stopReason?: StopReason;
  /** Why the model declined (stop reason `refusal`), when the service said. */
  explanation?: string;
  failure?: LlmError;
  /** Model requests of the turn (automatic compaction's private request not counted). */
  numTurns: number;
  compactions: number;
  durationMs: number;
}

/** Receives the events of a turn as they happen (an output format). */
export type TurnObserver = (ev: ControllerEvent) => void;

/**
 * Runs one turn of `session` headless and tells `observe` every event. Never throws for a provider
 * failure: it is the outcome's `failure`. Ctrl+C / SIGTERM cancel the turn (kind `cancelled`).
 */
export async function runHeadlessTurn(session: LiveSession, input: string, observe: TurnObserver, images?: readonly ToolResultImage[]): Promise<TurnOutcome> {
  const started = Date.now();
  const controller = new AbortController();
  // Ctrl+C, kill and a closed terminal (SIGHUP) all end the turn the same way: tools are
  // cancelled (their process groups killed), what was produced is saved, Keen exits. A second
  // signal exits at once; the exit hooks still kill tool process groups and release the lock.
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);
  let completed = '';
  let current = '';
  const outcome: Omit<TurnOutcome, 'result' | 'durationMs'> = { numTurns: 0, compactions: 0 };
  try {
    for await (const ev of session.controller.chat(input, controller.signal, images)) {
      observe(ev);
      switch (ev.type) {
        case 'text_delta':
          current += ev.text;
          break;
        case 'message':
          if (ev.message.role === 'assistant') {
            outcome.numTurns++;
            if (current && !current.endsWith('\n')) current += '\n';
          }
          break;
        case 'checkpoint':
          completed += current;
          current = '';
          outcome.compactions++;
          break;
        case 'done':
          outcome.stopReason = ev.stopReason;
          if (ev.explanation) outcome.explanation = ev.explanation;
          break;
        case 'error':
          outcome.failure = ev.error;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    // The store could not write (a full disk, say): the answer so far is still reported.
    outcome.failure = llmError('other', errorText(err));
  } finally {
    for (const sig of SIGNALS) process.off(sig, onSignal);
  }
  return { ...outcome, result: (completed + current).replace(/\n+$/, ''), durationMs: Date.now() - started };
}
