/**
 * The exported session page: one self-contained HTML document (inline CSS, one inline script, an
 * inline SVG plot; no network) built from a transcript's records. Pure: records in, a string out.
 * Every string from the transcript is escaped (escape.ts); the page's CSP allows only its own script.
 */
import { summaryHead, summaryText } from '../compaction/compactor.js';
import type { Message } from '../core/message.js';
import { segmentTurn } from '../transcript/projection.js';
import type { CompactionAppliedRecord, SessionRecord } from '../transcript/records.js';
import { contextSeries, plotSvg, type PlotLimits } from './context-plot.js';
import { clip, escapeHtml } from './escape.js';
import { PAGE_CSS, PAGE_SCRIPT, pagePolicy } from './page-assets.js';
import { toolCardHtml, type ToolCallDetail } from './tool-card.js';

export interface SessionPageInput {
  sessionId: string;
  records: readonly SessionRecord[];
  /** The budget the session runs under now (the threshold line of the plot). */
  limits: PlotLimits;
  /** When the page was made (shown in its header). */
  exportedAt: Date;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Arguments and results of every tool call in the records, by call id. */
function toolDetails(records: readonly SessionRecord[]): Map<string, ToolCallDetail> {
  const details = new Map<string, ToolCallDetail>();
  const at = (id: string) => details.get(id) ?? details.set(id, {}).get(id)!;
  const visit = (m: Message) => {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) at(c.id).args = c.args;
    else if (m.role === 'tool') at(m.tool_call_id).output = m.content;
  };
  for (const r of records) if (r.kind === 'assistant_turn') r.messages.forEach(visit);
  return details;
}

function compactionMarker(r: CompactionAppliedRecord): string {
  const head = summaryHead(r.messages);
  const summary = head ? summaryText(head) : undefined;
  const kept = r.messages.filter((m) => m !== head && m.role !== 'system').length;
  const title = `${r.mode === 'auto' ? 'Automatic' : 'Manual'} compaction`;
  const body = summary ? `<pre class="summary-text">${escapeHtml(clip(summary, 40_000))}</pre>` : '<p class="note">No summary (the history was replaced as it was).</p>';
  return `<details class="marker compaction" data-seq="${r.seq}" data-mode="${r.mode}"><summary>${title} · ${escapeHtml(r.ts)} · ${kept} recent message${kept === 1 ? '' : 's'} kept verbatim</summary>${body}</details>`;
}

function conversationHtml(records: readonly SessionRecord[]): string {
  const details = toolDetails(records);
  const out: string[] = [];
  let inAssistant = false;
  const close = () => {
    if (inAssistant) out.push('</section>');
    inAssistant = false;
  };
  for (const r of records) {
    switch (r.kind) {
      case 'user_message':
        close();
        out.push(`<section class="msg user" data-seq="${r.seq}"><div class="who">You</div><div class="text">${escapeHtml(r.message.content)}</div></section>`);
        break;
      case 'assistant_turn': {
        const segments = segmentTurn(r.text, r.tools);
        if (segments.length === 0) break;
        if (!inAssistant) out.push(`<section class="msg assistant" data-seq="${r.seq}"><div class="who">Keen</div>`);
        inAssistant = true;
        for (const s of segments) out.push(s.type === 'text' ? `<div class="text">${escapeHtml(s.text)}</div>` : toolCardHtml(s.tool, details.get(s.tool.id)));
        break;
      }
      case 'compaction_applied':
        close();
        out.push(compactionMarker(r));
        break;
      case 'prune_applied':
        close();
        out.push(`<p class="note marker-prune" data-seq="${r.seq}">${r.pruned.length} old tool output${r.pruned.length === 1 ? '' : 's'} replaced by artifact handles</p>`);
        break;
      case 'model_changed':
        close();
        out.push(`<p class="note" data-seq="${r.seq}">Model: ${escapeHtml(`${r.provider}/${r.model}`)}</p>`);
        break;
      case 'undo':
        close();
        out.push(
          `<p class="note" data-seq="${r.seq}">Undo: ${r.files.length} file${r.files.length === 1 ? '' : 's'} restored${r.conversation_to_seq ? ', conversation rewound' : ''}${r.files.length ? ` (${escapeHtml(r.files.join(', '))})` : ''}</p>`,
        );
        break;
      default:
        break;
    }
  }
  close();
  return out.join('\n');
}

/** The whole page. */
export function renderSessionPage(input: SessionPageInput): string {
  const { records, limits } = input;
  const started = records.find((r) => r.kind === 'session_started');
  const series = contextSeries(records);
  const peak = Math.max(0, ...series.points.map((p) => p.tokens));
  const compactions = series.compactions.filter((c) => c.mode !== 'prune').length;
  const title = `Keen session ${input.sessionId}`;
  const meta = started ? `${started.provider}/${started.model} · ${started.cwd} · started ${started.ts}` : 'no session_started record';
  const stats = [
    `<span>requests <b>${fmt(series.points.length)}</b></span>`,
    `<span>peak context <b>${fmt(peak)}</b> tokens</span>`,
    `<span>compactions <b>${fmt(compactions)}</b></span>`,
    `<span>window <b>${fmt(limits.window)}</b></span>`,
    `<span>${limits.threshold === undefined ? 'automatic compaction <b>off</b>' : `automatic compaction at <b>${fmt(limits.threshold)}</b>`}</span>`,
  ].join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(meta)} · exported ${escapeHtml(input.exportedAt.toISOString())}</div>
<h2 class="note">Context size per model request</h2>
<div class="stats">${stats}</div>
${plotSvg(series, limits)}
<p><button id="toggle-all" type="button" hidden>Unfold all</button></p>
<div class="conversation">
${conversationHtml(records)}
</div>
</main>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
