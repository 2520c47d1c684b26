import stringWidth from 'string-width';

/** Columns `text` takes in a terminal: wide CJK characters and emoji count two, ANSI codes none. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** `text` padded with spaces to `width` terminal columns (String.padEnd counts code units). */
export function padEndColumns(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
