import { Text as InkText, type TextProps } from 'ink';
import { createElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react';
import { terminalText } from '../../terminal-text.js';

/** Every string among `children` (arrays and fragments included) through the sanitiser. */
function safeChildren(children: ReactNode): ReactNode {
  if (typeof children === 'string') return terminalText(children);
  if (Array.isArray(children)) return children.map(safeChildren);
  if (isValidElement(children) && children.type === Fragment) {
    const el = children as ReactElement<{ children?: ReactNode }>;
    return createElement(Fragment, { key: el.key }, safeChildren(el.props.children));
  }
  return children;
}

/**
 * The only text component of the REPL: Ink's `Text` with every string child passed through
 * `terminalText` (src/terminal-text.ts) before Ink lays it out and styles it, so model output,
 * tool output, file names and config values can never send a control sequence to the terminal,
 * and Ink measures the text the terminal will show. Importing `Text` from 'ink' anywhere else is
 * a lint error (biome.json, noRestrictedImports), so a new component cannot forget it.
 */
export function Text({ children, ...props }: TextProps) {
  const safe = safeChildren(children);
  return Array.isArray(safe) ? createElement(InkText, props, ...safe) : createElement(InkText, props, safe);
}
