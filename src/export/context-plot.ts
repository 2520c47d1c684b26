/**
 * The context-size plot of the exported page: one point per model request (the prompt the
 * provider reported for it), the automatic-compaction threshold, and where each compaction came.
 * Pure: records in, figures and an inline SVG string out.
 */
import { promptTokens } from '../core/usage.js';
import type { SessionRecord } from '../transcript/records.js';
import { escapeHtml } from './escape.js';

export interface PlotPoint {
  /** 1, 2, 3 … in request order. */
  request: number;
  /** The seq of the `assistant_turn` record that carries the request's usage. */
  seq: number;
  tokens: number;
}

export interface PlotCompaction {
  /** Requests before it: the marker sits between request `after` and `after + 1`. */
  after: number;
  seq: number;
  mode: 'manual' | 'auto' | 'prune';
}

export interface ContextSeries {
  points: PlotPoint[];
  compactions: PlotCompaction[];
}

/**
 * Each `assistant_turn` record with a reported prompt is one request (the store writes a record
 * per assistant message, with that request's usage; tool-result records carry none). Compactions
 * and prune-only compactions are the markers.
 */
export function contextSeries(records: readonly SessionRecord[]): ContextSeries {
  const points: PlotPoint[] = [];
  const compactions: PlotCompaction[] = [];
  for (const r of records) {
    if (r.kind === 'assistant_turn') {
      const tokens = promptTokens(r.usage);
      if (tokens > 0) points.push({ request: points.length + 1, seq: r.seq, tokens });
    } else if (r.kind === 'compaction_applied') compactions.push({ after: points.length, seq: r.seq, mode: r.mode });
    else if (r.kind === 'prune_applied') compactions.push({ after: points.length, seq: r.seq, mode: 'prune' });
  }
  return { points, compactions };
}

export interface PlotLimits {
  /** Tokens at which automatic compaction runs; undefined when it is off. */
  threshold?: number;
  /** The context window. */
  window: number;
}

const W = 960;
const H = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 36 };
const fmt = (n: number) => n.toLocaleString('en-US');

/** The plot as an inline `<svg>` (no script, no external reference). */
export function plotSvg(series: ContextSeries, limits: PlotLimits): string {
  const { points, compactions } = series;
  const top = Math.max(1, limits.threshold ?? 0, ...points.map((p) => p.tokens)) * 1.1;
  const n = Math.max(1, points.length);
  const x = (request: number) => PAD.left + ((request - 0.5) / n) * (W - PAD.left - PAD.right);
  const y = (tokens: number) => PAD.top + (1 - tokens / top) * (H - PAD.top - PAD.bottom);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const parts: string[] = [];
  parts.push(`<rect class="frame" x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}"/>`);
  for (let k = 0; k <= 4; k++) {
    const v = Math.round((top / 1.1) * (k / 4));
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${r1(y(v)) + 4}" text-anchor="end">${fmt(v)}</text>`);
  }
  parts.push(`<text class="axis" x="${(W + PAD.left) / 2}" y="${H - 8}" text-anchor="middle">model request (${fmt(points.length)})</text>`);
  if (limits.threshold !== undefined) {
    const ty = r1(y(limits.threshold));
    parts.push(
      `<g class="threshold" data-tokens="${limits.threshold}"><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${ty}" y2="${ty}"/><text x="${W - PAD.right - 4}" y="${ty - 4}" text-anchor="end">automatic compaction at ${fmt(limits.threshold)}</text></g>`,
    );
  }
  for (const c of compactions) {
    const cx = r1(PAD.left + (c.after / n) * (W - PAD.left - PAD.right));
    const label = c.mode === 'prune' ? 'outputs pruned' : `${c.mode === 'auto' ? 'automatic' : 'manual'} compaction`;
    parts.push(
      `<g class="compaction-line" data-seq="${c.seq}" data-after="${c.after}"><line x1="${cx}" x2="${cx}" y1="${PAD.top}" y2="${H - PAD.bottom}"/><title>${escapeHtml(label)} (record ${c.seq})</title></g>`,
    );
  }
  if (points.length > 0) {
    parts.push(`<polyline class="series" points="${points.map((p) => `${r1(x(p.request))},${r1(y(p.tokens))}`).join(' ')}"/>`);
    for (const p of points) {
      parts.push(
        `<circle class="point" r="3.5" cx="${r1(x(p.request))}" cy="${r1(y(p.tokens))}" data-request="${p.request}" data-tokens="${p.tokens}"><title>request ${p.request}: ${fmt(p.tokens)} tokens</title></circle>`,
      );
    }
  } else {
    parts.push(`<text class="axis" x="${W / 2}" y="${H / 2}" text-anchor="middle">no request reported its usage</text>`);
  }
  return `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="Context size per model request" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}
