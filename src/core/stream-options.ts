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
  signal?: AbortSignal;
}

export const TOOL_CALLS_DISABLED_MESSAGE = 'Tool calls are disabled during compaction; use the history.';
