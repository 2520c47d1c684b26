/**
 * Syntax highlighting of code blocks with lowlight (highlight.js grammars), line at a time so
 * streamed code can be committed line by line: each line is highlighted together with the lines
 * of its block before it (the carried state), so block comments and multi-line strings stay
 * open across lines. lowlight is loaded after the first frame ({@link loadHighlighter}); until
 * it is, and for languages it does not know, code is one plain token. Diffs are coloured by
 * their line prefix. Pure once loaded, and never throws.
 */
import type { createLowlight } from 'lowlight';

export type TokenKind = 'plain' | 'keyword' | 'string' | 'number' | 'comment' | 'type' | 'add' | 'remove' | 'hunk';

export interface Token {
  text: string;
  kind: TokenKind;
}

/** The earlier lines of the open code block (the highlighter re-reads them for context). */
export interface HighlightState {
  lines?: string[];
}

type Lowlight = ReturnType<typeof createLowlight>;

let lowlight: Lowlight | undefined;
let loading: Promise<void> | undefined;

/** Loads the highlighter (once). The REPL calls it after painting its first frame. */
export function loadHighlighter(): Promise<void> {
  loading ??= import('./lowlight-common.js').then((m) => {
    lowlight = m.createLowlight(m.common);
  });
  return loading;
}

/** Context kept per block: enough for any comment or string that spans lines in practice. */
const CONTEXT_LINES = 200;

/** The canonical language for a fence info string (`ts`, `Python`, `diff`), or the name itself. */
export function languageOf(info: string): string | undefined {
  const name = info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (name === 'diff' || name === 'patch') return 'diff';
  return name || undefined;
}

/** hljs scope → our token kind (first matching prefix). */
const SCOPES: [string, TokenKind][] = [
  ['hljs-comment', 'comment'],
  ['hljs-quote', 'comment'],
  ['hljs-doctag', 'comment'],
  ['hljs-string', 'string'],
  ['hljs-regexp', 'string'],
  ['hljs-char', 'string'],
  ['hljs-subst', 'plain'],
  ['hljs-number', 'number'],
  ['hljs-keyword', 'keyword'],
  ['hljs-built_in', 'keyword'],
  ['hljs-literal', 'keyword'],
  ['hljs-meta', 'keyword'],
  ['hljs-type', 'type'],
  ['hljs-title', 'type'],
  ['hljs-class', 'type'],
];

function kindOf(classes: unknown, inherited: TokenKind): TokenKind {
  if (!Array.isArray(classes)) return inherited;
  for (const [scope, kind] of SCOPES) {
    if (classes.some((c) => typeof c === 'string' && (c === scope || c.startsWith(`${scope}.`) || c.startsWith(`${scope}_`)))) {
      // A title that is a function name reads better plain; only class-like titles are types.
      if (scope === 'hljs-title' && !classes.some((c) => c === 'class_' || c === 'hljs-title.class_' || String(c).includes('class'))) return inherited;
      return kind;
    }
  }
  return inherited;
}

function push(tokens: Token[], text: string, kind: TokenKind): void {
  if (!text) return;
  const last = tokens[tokens.length - 1];
  if (last && last.kind === kind) last.text += text;
  else tokens.push({ text, kind });
}

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/** The tokens of each line of the highlighted tree. */
function linesOf(root: HastNode): Token[][] {
  const lines: Token[][] = [[]];
  const walk = (node: HastNode, kind: TokenKind) => {
    if (node.type === 'text') {
      const parts = (node.value ?? '').split('\n');
      parts.forEach((part, i) => {
        if (i > 0) lines.push([]);
        push(lines[lines.length - 1], part, kind);
      });
      return;
    }
    const next = node.type === 'element' ? kindOf(node.properties?.className, kind) : kind;
    for (const child of node.children ?? []) walk(child, next);
  };
  walk(root, 'plain');
  return lines;
}

function diffLine(line: string): Token[] {
  if (line.startsWith('+++') || line.startsWith('---')) return [{ text: line, kind: 'hunk' }];
  if (line.startsWith('@@')) return [{ text: line, kind: 'hunk' }];
  if (line.startsWith('+')) return [{ text: line, kind: 'add' }];
  if (line.startsWith('-')) return [{ text: line, kind: 'remove' }];
  return [{ text: line, kind: 'plain' }];
}

/** A plain identifier on the line after: highlighted plain only when nothing is left open. */
const PROBE = 'x';

/**
 * Tokens of one code line of language `lang`, given in `state` the block's earlier lines that are
 * still open (inside a comment or string). A probe line after it tells whether anything stays
 * open: when not, the next line starts without context, so a block costs one small highlight
 * per line instead of re-reading the whole block.
 */
export function highlightLine(line: string, lang: string | undefined, state: HighlightState = {}): { tokens: Token[]; state: HighlightState } {
  const context = state.lines ?? [];
  const plain = (lines: string[]) => ({ tokens: line ? [{ text: line, kind: 'plain' as const }] : [], state: { lines } });
  if (lang === 'diff') return { tokens: line ? diffLine(line) : [], state: {} };
  if (!lang || !lowlight?.registered(lang)) return plain([]);
  try {
    const tree = lowlight.highlight(lang, [...context, line, PROBE].join('\n')) as unknown as HastNode;
    const lines = linesOf(tree);
    const probe = lines.at(-1) ?? [];
    const tokens = lines.at(-2) ?? [];
    const open = !(probe.length === 1 && probe[0].kind === 'plain' && probe[0].text === PROBE);
    const next = open ? [...context, line].slice(-CONTEXT_LINES) : [];
    return { tokens: line ? (tokens.length ? tokens : [{ text: line, kind: 'plain' }]) : [], state: { lines: next } };
  } catch {
    return plain([]);
  }
}
