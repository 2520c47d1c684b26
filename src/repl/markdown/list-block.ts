/**
 * A finished Markdown list, parsed with `marked` (the streaming path holds a list back until it
 * ends): nesting from marked's tree, ordered items numbered from the list's start, task items
 * checked or not, inline styles and links from marked's inline tokens. Pure; never throws: text
 * that marked does not read as exactly one run of lists comes back undefined (the caller keeps
 * the streaming lines).
 */
import type { Token, Tokens } from 'marked';
import { markedLexer } from './marked-lexer.js';
import type { Span } from './inline.js';
import type { MarkdownLine } from './line-classifier.js';
import { spansOf } from './marked-inline.js';

type ItemLine = Extract<MarkdownLine, { kind: 'item' }>;

const DELIMITER = /^\s*\d{1,9}([.)])/;

function bulletOf(list: Tokens.List, item: Tokens.ListItem, i: number): string {
  if (item.task) return item.checked ? '☑' : '☐';
  if (!list.ordered) return '•';
  const start = typeof list.start === 'number' ? list.start : 1;
  return `${start + i}${DELIMITER.exec(item.raw)?.[1] ?? '.'}`;
}

/** Block tokens inside an item: paragraphs/text join into the item's line, nested lists follow. */
function itemLines(list: Tokens.List, level: number, out: MarkdownLine[]): void {
  list.items.forEach((item, i) => {
    if (list.loose && i > 0) out.push({ kind: 'blank' });
    let head: ItemLine | undefined = { kind: 'item', indent: level, bullet: bulletOf(list, item, i), spans: [] };
    out.push(head);
    const addSpans = (spans: Span[]) => {
      if (head) {
        if (head.spans.length) head.spans.push({ text: '\n', style: 'plain' });
        head.spans.push(...spans);
      } else {
        out.push({ kind: 'item', indent: level, bullet: ' ', spans });
      }
    };
    for (const t of item.tokens as Token[]) {
      if (t.type === 'list') {
        itemLines(t as Tokens.List, level + 1, out);
        head = undefined;
      } else if (t.type === 'text' || t.type === 'paragraph' || t.type === 'heading') {
        addSpans(spansOf((t as Tokens.Text).tokens ?? [{ type: 'text', raw: t.raw, text: (t as Tokens.Text).text }]));
      } else if (t.type !== 'space' && t.type !== 'checkbox') {
        addSpans([{ text: t.raw.replace(/\n+$/, ''), style: 'plain' }]);
      }
    }
  });
}

/**
 * The list items of `lines` (one run of list lines, blank lines between items allowed), nested
 * `baseIndent` levels deep; undefined when marked sees anything but lists in them.
 */
export function parseList(lines: readonly string[], baseIndent = 0): MarkdownLine[] | undefined {
  let tokens: Token[];
  try {
    tokens = markedLexer().lex(lines.join('\n'), { gfm: true });
  } catch {
    return undefined;
  }
  if (!tokens.some((t) => t.type === 'list') || tokens.some((t) => t.type !== 'list' && t.type !== 'space')) return undefined;
  const out: MarkdownLine[] = [];
  tokens.forEach((t, i) => {
    if (t.type === 'list') itemLines(t as Tokens.List, baseIndent, out);
    else if (i > 0 && i < tokens.length - 1) out.push({ kind: 'blank' });
  });
  return out;
}
