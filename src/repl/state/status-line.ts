/**
 * What the loader says beside its status word: how long the turn has run, how many tokens it
 * streamed, and what a compaction summarises. Pure: the clock's time comes in.
 */
import type { Busy } from './ui-state.js';

/** `412`, `1.2k`, `12k`, `1.2M`: a token count at a glance. */
export function compactTokens(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1000) return String(v);
  if (v < 1_000_000) return `${v < 10_000 ? (v / 1000).toFixed(1).replace(/\.0$/, '') : Math.round(v / 1000)}k`;
  return `${(v / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** Output tokens of the turn so far: the providers' reports plus the estimate of what streamed since. */
export function busyTokens(busy: Busy): number {
  return (busy.reportedTokens ?? 0) + (busy.streamedTokens ?? 0);
}

/**
 * The details after the status word, joined by ` · `: `12s`, `summarising 10.8k tokens` (a
 * compaction), `↓ 1.2k tokens` (streamed by the turn; an automatic compaction's summary is not
 * streamed, so none while it runs). Empty for a busy slash command without a start time.
 */
export function statusDetails(busy: Busy, now: number): string {
  const parts: string[] = [];
  if (busy.startedAt !== undefined) parts.push(`${Math.max(0, Math.floor((now - busy.startedAt) / 1000))}s`);
  if (busy.summarising !== undefined && (busy.autoCompacting || busy.kind === 'compact')) parts.push(`summarising ${compactTokens(busy.summarising)} tokens`);
  const tokens = busyTokens(busy);
  if (tokens > 0 && !busy.autoCompacting) parts.push(`↓ ${compactTokens(tokens)} tokens`);
  return parts.join(' · ');
}
