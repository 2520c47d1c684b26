import { describe, expect, it } from 'vitest';
import { displayWidth, padEndColumns } from '../../src/repl/text-width.js';

describe('display widths', () => {
  it('counts CJK and emoji as two columns and pads to columns, not code units', () => {
    expect(displayWidth('名前')).toBe(4);
    expect(displayWidth('🚀')).toBe(2);
    // An escape sequence in external text is drawn as its visible escape, so it is measured as one.
    expect(displayWidth('\u001b[1mab\u001b[22m')).toBe('\\x1b[1mab\\x1b[22m'.length);
    expect(padEndColumns('名前', 6)).toBe('名前  ');
    expect(padEndColumns('ab', 6)).toBe('ab    ');
    expect(padEndColumns('toolong', 3)).toBe('toolong');
  });
});
