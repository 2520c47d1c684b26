/**
 * One tool call of the exported page: its card line (name, summary, failed or not), folded
 * details with the arguments and the output, and a coloured diff for the file edits.
 */
import type { ToolActivity } from '../transcript/records.js';
import { unifiedDiff } from '../tools/diff.js';
import { clip, escapeHtml } from './escape.js';

/** What the transcript holds of one call besides its card: the arguments and the result. */
export interface ToolCallDetail {
  args?: string;
  output?: string;
}

/** Characters of arguments and outputs kept on the page. */
const SHOWN_CHARS = 8000;

function parsedArgs(args: string | undefined): Record<string, unknown> | undefined {
  if (!args) return undefined;
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The diff an edit or a write makes, from its arguments; undefined for other tools. */
export function editDiff(name: string, args: string | undefined): string | undefined {
  const a = parsedArgs(args);
  if (!a) return undefined;
  const path = str(a.path) ?? str(a.file_path) ?? 'file';
  if (name === 'edit_file' && str(a.old_string) !== undefined && str(a.new_string) !== undefined) {
    return unifiedDiff(str(a.old_string) ?? '', str(a.new_string) ?? '', { path });
  }
  if (name === 'write_file' && str(a.content) !== undefined) return unifiedDiff('', str(a.content) ?? '', { path });
  return undefined;
}

/** A unified diff with one class per line kind (added, removed, hunk header, file header). */
export function diffHtml(diff: string): string {
  const lines = clip(diff, SHOWN_CHARS)
    .split('\n')
    .map((line) => {
      const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
      return `<span class="d-${kind}">${escapeHtml(line)}</span>`;
    });
  return `<pre class="diff">${lines.join('')}</pre>`;
}

function prettyArgs(args: string): string {
  const a = parsedArgs(args);
  return a ? JSON.stringify(a, null, 2) : args;
}

/** `detail.args` are the model's; a call a hook rewrote is shown with the input it ran with. */
export function toolCardHtml(tool: ToolActivity, given: ToolCallDetail | undefined): string {
  const detail = tool.input !== undefined ? { ...given, args: tool.input } : given;
  const diff = editDiff(tool.name, detail?.args);
  const state = tool.is_error ? ' failed' : '';
  const body: string[] = [];
  if (diff) body.push(diffHtml(diff));
  else if (detail?.args) body.push(`<div class="label">arguments</div><pre>${escapeHtml(clip(prettyArgs(detail.args), SHOWN_CHARS))}</pre>`);
  if (detail?.output !== undefined) body.push(`<div class="label">output</div><pre class="output">${escapeHtml(clip(detail.output, SHOWN_CHARS))}</pre>`);
  // Summaries usually start with the tool's name (`read_file a.ts`): the name is not said twice.
  const rest = tool.summary.startsWith(tool.name) ? tool.summary.slice(tool.name.length).trimStart() : tool.summary;
  const head = `<span class="tool-name">${escapeHtml(tool.name)}</span> <span class="tool-summary">${escapeHtml(rest)}</span>${tool.is_error ? ' <span class="badge">error</span>' : ''}`;
  // An edit's diff is the point of its card: open; other outputs fold.
  return `<details class="tool${state}"${diff ? ' open' : ''} data-tool="${escapeHtml(tool.id)}"><summary>${head}</summary>${body.join('')}</details>`;
}
