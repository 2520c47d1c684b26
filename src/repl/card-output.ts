/**
 * What a tool card keeps of a call's output: the first lines of a result, the complete lines of a
 * live tail. Pure and free of the diff and permission code, so the UI state can use it on the way
 * to the first frame.
 */
import { LIVE_TAIL_CHARS } from '../tools/output-cap.js';
import { CANCELLED } from '../tools/types.js';
import type { ToolCardData } from './state/ui-state.js';

/** Lines of output kept on a card at most (the model got the whole text; this is only display). */
export const CARD_OUTPUT_LINES = 400;

export function clipOutput(text: string): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= CARD_OUTPUT_LINES) return lines.join('\n');
  return [...lines.slice(0, CARD_OUTPUT_LINES), `… ${lines.length - CARD_OUTPUT_LINES} more lines`].join('\n');
}

/** A live tail's complete lines: its first line is dropped when the tail may have cut it. */
export function liveLines(tail: string, full: boolean): string[] {
  const lines = tail.replace(/\n+$/, '').split('\n');
  return full && lines.length > 1 ? lines.slice(1) : lines;
}

/**
 * The output a finished card keeps. A call cancelled while it printed (Ctrl+C on a bash command)
 * keeps what it printed above the "cancelled", instead of losing it to the one word.
 */
export function endedOutput(card: ToolCardData, output: string): string {
  if (!card.live || output !== CANCELLED) return output;
  return `${clipOutput(liveLines(card.live, card.live.length >= LIVE_TAIL_CHARS).join('\n'))}\n${output}`;
}
