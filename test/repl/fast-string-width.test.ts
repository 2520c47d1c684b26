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

  it('random strings of covered characters, plain and styled, measure as string-width says', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pool = [...Array(0x2600).keys()].map((cp) => String.fromCodePoint(cp)).filter((ch) => NARROW_RUN.test(ch));
    for (let i = 0; i < 300; i++) {
      const s = Array.from({ length: 1 + (next() % 40) }, () => pool[next() % pool.length]).join('');
      expect(fastStringWidth(s)).toBe(stringWidth(s));
      const codes = ['\u001b[1m', '\u001b[22m', '\u001b[38;5;12m', '\u001b[0m', '\u001b[12345m', '\u001b[;m', '\u001b[3'];
      const styled = [...s].map((ch) => (next() % 4 ? ch : codes[next() % codes.length] + ch)).join('');
      expect([styled, fastStringWidth(styled)]).toEqual([styled, stringWidth(styled)]);
    }
  });

  it('styled text measures as string-width measures it: SGR codes of every shape, and escapes it leaves alone', () => {
    const samples = [
      '\u001b[1m\u001b[36m› \u001b[39m\u001b[22m\u001b[7mT\u001b[27m\u001b[2mype a message · /help\u001b[22m',
      '\u001b[2m\u001b[90m╭──────╮\u001b[39m\u001b[22m',
      '\u001b[38;2;255;128;0morange\u001b[39m and \u001b[48;5;236mgrey\u001b[49m',
      '\u001b[mreset\u001b[0m',
      '\u001b[00000mlong parameter',
      '\u001b[1;;3mempty parameter',
      '\u001b[31mred\u001b\\ and on',
      '\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007',
      '\u001b[2Kcleared',
      '\u001b[31m漢字\u001b[39m',
      '\u001b[31mé\u001b[39m',
      '\u001b[31m\u001b[39m',
      '\u001b',
      '\u001b[',
      '\u009b31mC1 introducer',
    ];
    for (const s of samples) expect([s, fastStringWidth(s)]).toEqual([s, stringWidth(s)]);
  });
});
