/** Per-request switches for `streamChat`. */
export interface StreamOptions {
  sessionId?: string;
  /**
   * One model exchange owned by a caller that is itself compacting or summarising: never starts an
   * automatic compaction.
   */
  oneShot?: boolean;
  /** Never start an automatic compaction underneath this stream. */
  disableAutoCompaction?: boolean;
  /**
   * Swap in a denying registry: tools stay defined (prompt-cache parity) but every call gets the
   * tool error {@link TOOL_CALLS_DISABLED_MESSAGE} and nothing runs.
   */
  disableToolCalls?: boolean;
  /**
   * Appended as the final user content after the request's messages, outside its cached prefix
   * (the manual compaction's fork: the instruction is written once and never read again).
   */
  instruction?: string;
  signal?: AbortSignal;
}

export const TOOL_CALLS_DISABLED_MESSAGE = 'Tool calls are disabled during compaction; use the history.';
