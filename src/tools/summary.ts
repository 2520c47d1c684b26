import type { ToolCall } from '../core/message.js';
import { lineCount, linesText } from './line-count.js';

const MAX = 80;

function clip(text: string, max = MAX): string {
  const line = text.replace(/\s*\n[\s\S]*$/, ' …').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function lineRange(offset: number | undefined, limit: number | undefined): string {
  if (offset === undefined && limit === undefined) return '';
  const from = offset ?? 1;
  return limit === undefined ? `:${from}-` : `:${from}-${from + limit - 1}`;
}

/** What a call whose input a PreToolUse hook changed says on its card, its question and its stored summary. */
export const INPUT_CHANGED_MARK = '(input changed by a PreToolUse hook)';

/**
 * One line describing a call's arguments for UI cards, e.g. `read_file src/a.ts:10-40`,
 * `bash npm test`. Never throws: unparsable or unexpected arguments are shown raw and clipped.
 */
export function toolSummary(call: ToolCall): string {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = call.args.trim() === '' ? {} : JSON.parse(call.args);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return clip(`${call.name} ${call.args}`);
  }
  const p = str(args.path);
  switch (call.name) {
    case 'read_file':
      if (p) return clip(`read_file ${p}${lineRange(num(args.offset), num(args.limit))}`);
      break;
    case 'write_file':
      if (p) return clip(`write_file ${p}${typeof args.content === 'string' ? ` (${linesText(lineCount(args.content))})` : ''}`);
      break;
    case 'edit_file':
      if (p) return clip(`edit_file ${p}${args.replace_all === true ? ' (all occurrences)' : ''}`);
      break;
    case 'glob':
      if (str(args.pattern)) return clip(`glob ${args.pattern}${p ? ` in ${p}` : ''}`);
      break;
    case 'grep': {
      if (!str(args.pattern)) break;
      const parts = [`grep ${args.pattern}`];
      if (p) parts.push(`in ${p}`);
      if (str(args.glob)) parts.push(`(${args.glob})`);
      if (args.case_insensitive === true) parts.push('-i');
      return clip(parts.join(' '));
    }
    case 'bash':
      if (str(args.command)) return clip(`bash ${args.command}`);
      break;
    case 'list_dir':
      return clip(`list_dir ${p ?? '.'}`);
    case 'web_fetch':
      if (str(args.url)) return clip(`web_fetch ${args.url}`);
      break;
  }
  const shown = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return clip(shown === '' ? call.name : `${call.name} ${shown}`);
}
