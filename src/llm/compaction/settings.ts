/**
 * The compaction settings both paths read (from `compaction.*` in config, resolved in
 * src/app-state/open-session.ts). Library callers that pass none get {@link NO_EXTRAS}: no tail,
 * no pruning, the parent model as summariser — today's plain behaviour.
 */

/** Approximate bytes one token may take in the tail before the byte cap cuts it. */
export const TAIL_BYTES_PER_TOKEN = 6;

/**
 * `compaction.keepRecentTokens` default: 6,000. Measured on this repository (see
 * docs/compaction.md, "Defaults and the evidence"): the newest complete tool exchange is at most
 * ~5,600 tokens for 9 in 10 read_file calls, and 6,000 tokens is 3 % of a 200k window.
 */
export const DEFAULT_KEEP_RECENT_TOKENS = 6000;

export interface CompactionSettings {
  /** Newest messages kept verbatim after the summary, in estimated tokens (0: none). */
  keepRecentTokens: number;
  /** Replace old tool outputs by artifact handles at compaction time. */
  prune: boolean;
  /** `compaction.instructions`: added to every compaction prompt. */
  instructions?: string;
}

export const NO_EXTRAS: CompactionSettings = { keepRecentTokens: 0, prune: false };

export const DEFAULT_SETTINGS: CompactionSettings = { keepRecentTokens: DEFAULT_KEEP_RECENT_TOKENS, prune: true };

export function tailMaxBytes(settings: CompactionSettings): number {
  return settings.keepRecentTokens * TAIL_BYTES_PER_TOKEN;
}
