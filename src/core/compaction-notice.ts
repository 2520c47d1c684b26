import { oneLine } from './one-line.js';

/**
 * The rest of the sentence a front end says after "automatic compaction failed: " (an automatic
 * compaction failed or a PreCompact hook blocked it): the reason on one line, then that the turn
 * goes on with the history as it was.
 */
export function compactionFailedTail(reason: string | undefined): string {
  return `${oneLine(reason ?? 'unknown error', 300).replace(/\.$/, '')}; continuing without it`;
}
