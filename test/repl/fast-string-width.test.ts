/**
 * The bundle measures text with src/repl/fast-string-width.ts instead of string-width
 * (scripts/build.mjs). Its fast path must give string-width's own answer: checked for every
 * character it covers, for mixed strings, and for everything it hands on.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import fastStringWidth, { NARROW_RUN } from '../../src/repl/fast-string-width.js';

describe('fast string width', () => {
  it('every character of the fast path is one column for string-width too', () => {
    const covered: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) {
      const ch = String.fromCodePoint(cp);
      if (NARROW_RUN.test(ch)) covered.push(ch);
    }
    expect(covered.length).toBe(396);
    const wrong = covered.filter((ch) => stringWidth(ch) !== 1).map((ch) => ch.codePointAt(0)!.toString(16));
    expect(wrong).toEqual([]);
  });

  it('agrees with string-width on the lines a frame is made of and on what it hands on', () => {
    const samples = [
      '',
      'plain ascii',
      'anthropic/claude · 1% context · session 20261201',
      '╭──────────────╮',
      '│ › Type a message · /help │',
      'starting…',
      'wide 漢字 and emoji 🎉 and ‼ and é (e + combining acute: é)',
      '\u001b[31mred\u001b[39m · text',
      'soft\u00adhyphen',
      'tab\tand\u0007bell',
      'Ｆｕｌｌwidth',
    ];
    for (const s of samples) expect([s, fastStringWidth(s)]).toEqual([s, stringWidth(s)]);
    expect(fastStringWidth('│ box │', { ambiguousIsNarrow: false })).toBe(stringWidth('│ box │', { ambiguousIsNarrow: false }));
    expect(fastStringWidth('\u001b[1mx\u001b[22m', { countAnsiEscapeCodes: true })).toBe(stringWidth('\u001b[1mx\u001b[22m', { countAnsiEscapeCodes: true }));
  });

  it('random strings of covered characters measure their length, as string-width says', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pool = [...Array(0x2600).keys()].map((cp) => String.fromCodePoint(cp)).filter((ch) => NARROW_RUN.test(ch));
    for (let i = 0; i < 300; i++) {
      const s = Array.from({ length: 1 + (next() % 40) }, () => pool[next() % pool.length]).join('');
      expect(fastStringWidth(s)).toBe(stringWidth(s));
    }
  });
});
