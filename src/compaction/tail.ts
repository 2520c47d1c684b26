/**
 * The verbatim tail: the newest messages kept as they are after the compacted summary. Pure.
 */
import type { Message } from '../core/message.js';

export interface TailOptions {
  /** `compaction.keepRecentTokens`: 0 keeps no tail. */
  keepTokens: number;
  /** Bytes (JSON) the tail may hold, so one huge message cannot pin the window. */
  maxBytes: number;
  /** Estimated tokens of one message. */
  count: (m: Message) => number;
}

/**
 * Where the tail starts in `messages` (the part being compacted, without a summary head):
 * `messages.length` means no tail. The tail holds at most `keepTokens` tokens, `maxBytes` bytes
 * and half of the tokens of `messages` (a compaction must leave something to summarise). The cut
 * never separates a tool call from its results and the tail never starts with a tool result:
 * a cut that lands on a tool result moves forward past the run of results.
 */
export function tailStart(messages: readonly Message[], opts: TailOptions): number {
  if (opts.keepTokens <= 0 || messages.length < 2) return messages.length;
  let total = 0;
  for (const m of messages) total += opts.count(m);
  const limit = Math.min(opts.keepTokens, Math.floor(total / 2));
  let tokens = 0;
  let bytes = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i >= 1; i--) {
    tokens += opts.count(messages[i]);
    bytes += Buffer.byteLength(JSON.stringify(messages[i]));
    if (tokens > limit || bytes > opts.maxBytes) break;
    cut = i;
  }
  while (cut < messages.length && messages[cut].role === 'tool') cut++;
  return cut;
}
