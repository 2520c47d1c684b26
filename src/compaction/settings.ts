/**
 * The compaction settings both paths read (from `compaction.*` in config, resolved in
 * src/agent/open-session.ts). Library callers that pass none get {@link NO_EXTRAS}: no tail,
 * no pruning, the parent model as summariser — today's plain behaviour.
 */

/** Approximate bytes one token may take in the tail before the byte cap cuts it. */
export const TAIL_BYTES_PER_TOKEN = 6;

/**
 * `compaction.keepRecentTokens` default: 8,000. Measured by bench/compaction-tail.ts on this
 * repository (docs/compaction.md, "Defaults and the evidence"): one read_file exchange is 1,452
 * tokens at the median and 4,171 at p95, one grep exchange 6,867 at the median, so 8,000 keeps
 * the newest exchange whole in nearly every case while staying 4 % of a 200k window.
 */
export const DEFAULT_KEEP_RECENT_TOKENS = 8000;

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
