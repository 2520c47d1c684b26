import { Text as InkText, type TextProps } from 'ink';
import { createElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react';
import { terminalPieces } from '../../security/terminal-text.js';

/** One string as drawn: sanitised, its escapes inverse so they read apart from text that looks alike. */
function safeString(text: string): ReactNode {
  const pieces = terminalPieces(text);
  if (pieces.length === 1) return pieces[0];
  return pieces.map((piece, i) => (i % 2 === 1 ? createElement(InkText, { key: i, inverse: true }, piece) : piece));
}

/** Every string among `children` (arrays and fragments included) through the sanitiser. */
function safeChildren(children: ReactNode): ReactNode {
  if (typeof children === 'string') return safeString(children);
  if (Array.isArray(children)) return children.map(safeChildren);
  if (isValidElement(children) && children.type === Fragment) {
    const el = children as ReactElement<{ children?: ReactNode }>;
    return createElement(Fragment, { key: el.key }, safeChildren(el.props.children));
  }
  return children;
}

/**
 * The only text component of the REPL: Ink's `Text` with every string child passed through the
 * sanitiser (src/security/terminal-text.ts) before Ink lays it out and styles it, so model output, tool
 * output, file names and config values can never send a control sequence to the terminal, and
 * Ink measures the text the terminal will show. The escapes (`\x1b`, `\b`) are drawn inverse.
 * Importing `Text` from 'ink' anywhere else is a lint error (biome.json, noRestrictedImports),
 * so a new component cannot forget it.
 */
export function Text({ children, ...props }: TextProps) {
  const safe = safeChildren(children);
  return Array.isArray(safe) ? createElement(InkText, props, ...safe) : createElement(InkText, props, safe);
}
