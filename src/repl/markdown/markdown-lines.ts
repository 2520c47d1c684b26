/**
 * Finished Markdown blocks, rendered from marked's token tree. The streaming path
 * (`line-classifier.ts`) shows the block being written; once a block is complete (the reducer
 * commits complete lines, and holds a table or a list back until it ends) its lines come here:
 * headings, paragraphs, quotes and rules are lexed by marked, a run of list lines becomes one
 * marked list (nesting, numbering, task items), a run of table rows one marked table. Code fences
 * keep the classifier's carried state and lowlight. Pure; never throws: what marked does not read
 * as the block the classifier saw keeps its streaming rendering.
 */
import type { Token, Tokens } from 'marked';
import { markedLexer } from './marked-lexer.js';
import { classifyLine, type MarkdownLine, type MarkdownState } from './line-classifier.js';
import { parseList } from './list-block.js';
import { spansOf } from './marked-inline.js';
import { parseTable } from './table-block.js';
import type { Span } from './inline.js';

export type { MarkdownLine, MarkdownState } from './line-classifier.js';

/** A list held back longer than this is committed as it stands (the rest continues nested). */
export const MAX_HELD_LIST_LINES = 60;

type Kind = MarkdownLine['kind'];

/** A line that can belong to a list run started by an item: items, blank lines, indented text. */
const inList = (kind: Kind, line: string) => kind === 'item' || kind === 'blank' || (kind === 'text' && /^\s/.test(line));

function quoteSpans(tokens: readonly Token[], out: Span[]): Span[] {
  for (const t of tokens) {
    if (t.type === 'blockquote') quoteSpans((t as Tokens.Blockquote).tokens, out);
    else {
      if (out.length) out.push({ text: ' ', style: 'plain' });
      out.push(...spansOf((t as Tokens.Paragraph).tokens ?? [{ type: 'text', raw: t.raw, text: t.raw }]));
    }
  }
  return out;
}

/** One heading, paragraph, quote or rule line from marked; the classifier's line otherwise. */
function finishedLine(text: string, fallback: MarkdownLine): MarkdownLine {
  let tokens: Token[];
  try {
    tokens = markedLexer()
      .lex(text, { gfm: true })
      .filter((t) => t.type !== 'space');
  } catch {
    return fallback;
  }
  const [t] = tokens;
  if (tokens.length !== 1) return fallback;
  switch (t.type) {
    case 'heading':
      return fallback.kind === 'heading' ? { kind: 'heading', level: (t as Tokens.Heading).depth, spans: spansOf((t as Tokens.Heading).tokens) } : fallback;
    case 'paragraph': {
      if (fallback.kind !== 'text') return fallback;
      const lead = /^\s*/.exec(text)?.[0] ?? '';
      const spans = spansOf((t as Tokens.Paragraph).tokens);
      return { kind: 'text', spans: lead ? [{ text: lead, style: 'plain' }, ...spans] : spans };
    }
    case 'blockquote':
      return fallback.kind === 'quote' ? { kind: 'quote', spans: quoteSpans((t as Tokens.Blockquote).tokens, []) } : fallback;
    case 'hr':
      return fallback.kind === 'rule' ? { kind: 'rule' } : fallback;
    default:
      return fallback;
  }
}

/** End (exclusive) of the list run starting at item `i`, trailing blank lines left out. */
function listRunEnd(lines: readonly string[], kinds: readonly Kind[], i: number): number {
  let j = i + 1;
  while (j < lines.length && inList(kinds[j], lines[j])) j++;
  while (j > i + 1 && kinds[j - 1] === 'blank') j--;
  return j;
}

/**
 * Render complete lines of finished blocks, threading the fence state from line to line (the
 * state carries across commits, so a code block may span several).
 */
export function classifyLines(lines: readonly string[], state: MarkdownState): { lines: MarkdownLine[]; state: MarkdownState } {
  const streamed: MarkdownLine[] = [];
  let current = state;
  for (const line of lines) {
    const r = classifyLine(line, current);
    streamed.push(r.line);
    current = r.state;
  }
  const kinds = streamed.map((l) => l.kind);
  const out: MarkdownLine[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = streamed[i];
    if (line.kind === 'table-row') {
      let j = i + 1;
      while (j < lines.length && kinds[j] === 'table-row') j++;
      const table = parseTable(lines.slice(i, j));
      out.push(...(table ? [table] : streamed.slice(i, j)));
      i = j;
    } else if (line.kind === 'item') {
      const j = listRunEnd(lines, kinds, i);
      const margin = /^\s*/.exec(lines[i])?.[0].length ?? 0;
      const run = lines.slice(i, j).map((l) => l.slice(Math.min(margin, /^\s*/.exec(l)?.[0].length ?? 0)));
      out.push(...(parseList(run, line.indent) ?? streamed.slice(i, j)));
      i = j;
    } else {
      out.push(line.kind === 'heading' || line.kind === 'text' || line.kind === 'quote' || line.kind === 'rule' ? finishedLine(lines[i], line) : line);
      i++;
    }
  }
  return { lines: out, state: current };
}

/**
 * How many of the trailing `lines` belong to a block that may still grow, which the streaming
 * path holds back so the finished block is parsed as a whole: table rows (a blank line ends a
 * table, so none when `blankAfter`), or a list run (blank lines do not end a list; one held
 * longer than MAX_HELD_LIST_LINES is let go).
 */
export function openBlockRows(lines: readonly string[], state: MarkdownState, blankAfter = false): number {
  const kinds = lines.map((line) => {
    const r = classifyLine(line, state);
    state = r.state;
    return r.line.kind;
  });
  let start = kinds.length;
  if (!blankAfter && kinds[start - 1] === 'table-row') {
    while (start > 0 && kinds[start - 1] === 'table-row') start--;
    return kinds.length - start;
  }
  while (start > 0 && inList(kinds[start - 1], lines[start - 1])) start--;
  while (start < kinds.length && kinds[start] !== 'item') start++;
  const held = kinds.length - start;
  return held > MAX_HELD_LIST_LINES ? 0 : held;
}

/** Render a whole finished text (replay, help). */
export function classifyText(text: string): MarkdownLine[] {
  return classifyLines(text.replace(/\n+$/, '').split('\n'), {}).lines;
}
