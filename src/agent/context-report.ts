/**
 * Where the context window goes: system prompt, tool definitions, instructions and memory,
 * conversation, tool outputs, free room — for `/context` and `keen context`. Pure. The total is
 * the session's {@link ContextMeasure} (the trigger's figure); the split between parts is the
 * local estimate of each, scaled to that total.
 */
import type { ContextBudget } from '../tokens/context-budget.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';
import { estimateMessage, estimateText, estimateTools } from '../tokens/token-estimator.js';
import { buildConversation } from '../transcript/projection.js';
import type { SessionRecord } from '../transcript/records.js';
import type { CompactionNote } from './session-controller.js';

export type ContextPartName = 'system_prompt' | 'tools' | 'instructions' | 'conversation' | 'tool_outputs';

export interface ContextReport {
  window: number;
  input_budget: number;
  /** Estimated input at which automatic compaction runs; null when it is off. */
  auto_compact_at: number | null;
  /** The measured context: what the next request would send. */
  tokens: number;
  /** `reported`: corrected by the provider's last usage report; `local`: estimate only. */
  source: 'reported' | 'local';
  parts: { name: ContextPartName; label: string; tokens: number }[];
  free: number;
  compactions: CompactionNote[];
}

export interface ContextInput {
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  messages: readonly Message[];
  measured: { tokens: number; source: 'reported' | 'local' };
  budget: Pick<ContextBudget, 'window' | 'inputBudget' | 'threshold' | 'autoEnabled'>;
  compactions: readonly CompactionNote[];
}

const LABELS: Record<ContextPartName, string> = {
  system_prompt: 'System prompt',
  tools: 'Tool definitions',
  instructions: 'Instructions and memory',
  conversation: 'Conversation',
  tool_outputs: 'Tool outputs',
};

/** Sections of the system prompt that come from the project (instruction files, memory). */
const INSTRUCTION_SECTION = /\n\n# (Project instructions|Memory|Skills)\b/;

export function contextReport(input: ContextInput): ContextReport {
  const cut = input.systemPrompt.search(INSTRUCTION_SECTION);
  const base = cut < 0 ? input.systemPrompt : input.systemPrompt.slice(0, cut);
  const instructions = cut < 0 ? '' : input.systemPrompt.slice(cut);
  const raw: Record<ContextPartName, number> = {
    system_prompt: estimateText(base) + 4,
    tools: estimateTools(input.tools),
    instructions: instructions ? estimateText(instructions) : 0,
    conversation: 0,
    tool_outputs: 0,
  };
  for (const m of input.messages) raw[m.role === 'tool' ? 'tool_outputs' : 'conversation'] += estimateMessage(m);
  const localTotal = Object.values(raw).reduce((a, b) => a + b, 0);
  const scale = localTotal > 0 ? input.measured.tokens / localTotal : 0;
  const names = Object.keys(raw) as ContextPartName[];
  const parts = names.map((name) => ({ name, label: LABELS[name], tokens: Math.round(raw[name] * scale) }));
  // Rounding must not make the parts disagree with the total.
  const drift = input.measured.tokens - parts.reduce((a, p) => a + p.tokens, 0);
  const largest = parts.reduce((a, p) => (p.tokens > a.tokens ? p : a), parts[0]);
  largest.tokens += drift;
  return {
    window: input.budget.window,
    input_budget: input.budget.inputBudget,
    auto_compact_at: input.budget.autoEnabled ? input.budget.threshold : null,
    tokens: input.measured.tokens,
    source: input.measured.source,
    parts,
    free: Math.max(0, input.budget.window - input.measured.tokens),
    compactions: [...input.compactions],
  };
}

/** The compactions stored in a transcript, with their estimated size before → after. */
export function storedCompactions(records: readonly SessionRecord[], tools: readonly ToolDefinition[]): CompactionNote[] {
  const notes: CompactionNote[] = [];
  let toolTokens: number | undefined; // counted only when there is a compaction to size
  const size = (messages: readonly Message[]) => {
    toolTokens ??= estimateTools(tools);
    return toolTokens + messages.reduce((a, m) => a + estimateMessage(m), 0);
  };
  records.forEach((r, i) => {
    if (r.kind !== 'compaction_applied') return;
    notes.push({ at: r.ts, mode: r.mode, tokensBefore: size(buildConversation(records.slice(0, i))), tokensAfter: size(r.messages) });
  });
  return notes;
}

const n = (v: number) => v.toLocaleString('en-US');
const SHADES = ['█', '▓', '▒', '░', '▚'];

/**
 * The report as text: a proportional bar of the window (one shade per part, `·` free room, `|`
 * where automatic compaction runs), a legend with tokens and shares, and the compactions.
 */
export function contextLines(report: ContextReport, width = 60): string[] {
  const cells: string[] = [];
  const per = report.window / width;
  report.parts.forEach((p, i) => {
    const count = Math.round(p.tokens / per);
    for (let k = 0; k < count && cells.length < width; k++) cells.push(SHADES[i % SHADES.length]);
  });
  while (cells.length < width) cells.push('·');
  if (report.auto_compact_at !== null) cells[Math.min(width - 1, Math.floor(report.auto_compact_at / per))] = '|';
  const pct = (t: number) => (report.window > 0 ? `${((t / report.window) * 100).toFixed(1)}%` : '-');
  const labelWidth = Math.max(...report.parts.map((p) => p.label.length), 'Free room'.length);
  const lines = [
    `[${cells.join('')}]`,
    `${n(report.tokens)} of ${n(report.window)} tokens (${pct(report.tokens)})${report.source === 'reported' ? ", corrected by the provider's last usage report" : ', local estimate'}`,
    report.auto_compact_at !== null
      ? `| automatic compaction at ${n(report.auto_compact_at)} tokens (input budget ${n(report.input_budget)})`
      : `automatic compaction is off (input budget ${n(report.input_budget)})`,
    '',
    ...report.parts.map((p, i) => `${SHADES[i % SHADES.length]} ${p.label.padEnd(labelWidth)}  ${n(p.tokens).padStart(9)}  ${pct(p.tokens).padStart(6)}`),
    `· ${'Free room'.padEnd(labelWidth)}  ${n(report.free).padStart(9)}  ${pct(report.free).padStart(6)}`,
  ];
  lines.push('', report.compactions.length ? `Compactions (${report.compactions.length}):` : 'No compactions yet.');
  for (const c of report.compactions)
    lines.push(`  ${c.at.replace('T', ' ').slice(0, 19)}  ${c.mode === 'auto' ? 'automatic' : 'manual   '}  ${n(c.tokensBefore)} → ${n(c.tokensAfter)} tokens`);
  return lines;
}

/** The report of a live session (its controller's measure, history, budget and compactions). */
export function sessionContextReport(session: {
  budget: ContextInput['budget'];
  controller: {
    appState: { messages: readonly Message[]; toolDefinitions: readonly ToolDefinition[] };
    context: { measure(): { tokens: number; source: 'reported' | 'local'; systemPrompt: string } };
    compactions: readonly CompactionNote[];
  };
}): ContextReport {
  const measured = session.controller.context.measure();
  return contextReport({
    systemPrompt: measured.systemPrompt,
    tools: session.controller.appState.toolDefinitions,
    messages: session.controller.appState.messages,
    measured,
    budget: session.budget,
    compactions: session.controller.compactions,
  });
}
