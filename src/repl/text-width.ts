import stringWidth from 'string-width';
import { terminalText } from '../security/terminal-text.js';

/**
 * Columns `text` takes in a terminal as the REPL draws it: measured after the sanitiser
 * (src/security/terminal-text.ts), so a control character counts as its visible escape (`\x1b` is four
 * columns, not the zero string-width gives an escape sequence) and a tab as the spaces it becomes.
 * Wide CJK characters and emoji count two.
 */
export function displayWidth(text: string): number {
  return stringWidth(terminalText(text));
}

/** `text` padded with spaces to `width` terminal columns (String.padEnd counts code units). */
export function padEndColumns(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
