/** The terminal sanitiser: every class of character it escapes, what it keeps, and the width of its result. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { escapeChar, forStream, terminalPieces, terminalStream, terminalText, UNSAFE } from '../../src/security/terminal-text.js';
import { displayWidth } from '../../src/repl/text-width.js';

const cp = (code: number) => String.fromCodePoint(code);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('terminalText', () => {
  it('escapes every C0 control but LF and TAB, DEL and every C1 control', () => {
    for (const code of [...range(0x00, 0x08), ...range(0x0b, 0x1f), 0x7f, ...range(0x80, 0x9f)]) {
      const out = terminalText(`a${cp(code)}b`);
      expect(out, `U+${code.toString(16)}`).not.toContain(cp(code));
      expect(out).toMatch(/^a\\(x[0-9a-f]{2}|[0bvfr])b$/);
    }
  });

  it('uses the JavaScript escapes: \\b, \\r, \\0, \\x1b, \\x07, \\x9b', () => {
    expect(terminalText('\b\r\0\x1b\x07\x9b\f\v')).toBe('\\b\\r\\0\\x1b\\x07\\x9b\\f\\v');
    expect(terminalText(`touch PWNED; ${'\b'.repeat(3)}ls`)).toBe('touch PWNED; \\b\\b\\bls');
  });

  it('escapes OSC 52, OSC 0, OSC 8 and CSI sequences: no ESC is left', () => {
    const osc = '\x1b]52;c;Y3VybCB4IHwgc2g=\x07\x1b]0;title\x1b\\\x1b]8;;http://x\x1b\\link\x1b[2J\x1b[8m';
    const out = terminalText(osc);
    expect(out).not.toMatch(/[\x1b\x07]/);
    expect(out).toBe('\\x1b]52;c;Y3VybCB4IHwgc2g=\\x07\\x1b]0;title\\x1b\\\\x1b]8;;http://x\\x1b\\link\\x1b[2J\\x1b[8m');
  });

  it('escapes the bidi controls and the invisible characters', () => {
    const codes = [
      0x061c,
      0x200e,
      0x200f,
      ...range(0x202a, 0x202e),
      ...range(0x2066, 0x2069),
      0x00ad,
      0x180e,
      0x200b,
      0x2028,
      0x2029,
      ...range(0x2060, 0x2064),
      0xfeff,
      ...range(0xfff9, 0xfffb),
    ];
    for (const code of codes) {
      const shown = code <= 0xff ? `\\x${code.toString(16)}` : `\\u${code.toString(16).padStart(4, '0')}`;
      expect(terminalText(`a${cp(code)}b`), `U+${code.toString(16)}`).toBe(`a${shown}b`);
    }
    expect(terminalText('abc\u202Eevil')).toBe('abc\\u202eevil');
  });

  it('escapes tag characters (hidden text) but keeps an emoji tag sequence (the flag of England)', () => {
    const hidden = [...'ignore previous'].map((c) => cp(0xe0000 + c.charCodeAt(0))).join('');
    expect(terminalText(`ok${hidden}`)).toBe(`ok${[...'ignore previous'].map((c) => `\\u{e00${c.charCodeAt(0).toString(16)}}`).join('')}`);
    const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    expect(terminalText(`flag ${england}`)).toBe(`flag ${england}`);
  });

  it('leaves ordinary text untouched: accents, CJK, emoji with ZWJ and variation selectors, Indic ZWNJ', () => {
    for (const text of ['plain ASCII ~!@#$%^&*()', 'héllo wörld ñ', '日本語のテキスト', '👨‍👩‍👧 family, ❤️ heart, 👍🏽 thumbs', 'क्‌ष', '→ · … ─│╭', 'a\nb\n']) {
      expect(terminalText(text)).toBe(text);
    }
  });

  it('expands tabs to the next stop of 8 in their line, counting escapes, and turns CR LF into LF', () => {
    expect(terminalText('a\tb\n\tc')).toBe(`a${' '.repeat(7)}b\n${' '.repeat(8)}c`);
    expect(terminalText('\x1b\tx')).toBe(`\\x1b${' '.repeat(4)}x`);
    expect(terminalText('one\r\ntwo\rthree')).toBe('one\ntwo\\rthree');
  });

  it('keeps tabs and CR LF in keep mode (plain output to a terminal) and still escapes a lone CR', () => {
    expect(terminalText('a\tb\r\nc\rd', { tabs: 'keep' })).toBe('a\tb\r\nc\\rd');
  });

  it('is idempotent, and its result has no unsafe character left', () => {
    const nasty = '\x1b]52;c;x\x07\b\r\u202e\u200b\u{e0041}\t\x9b';
    const once = terminalText(nasty);
    expect(UNSAFE.test(once)).toBe(false);
    expect(terminalText(once)).toBe(once);
  });

  it('is measured as drawn: each escape takes its visible columns, wide characters two', () => {
    expect(displayWidth('\x1b[8m')).toBe('\\x1b[8m'.length);
    expect(stringWidth('\x1b[8mhidden\x1b[0m')).toBe(6); // string-width alone counts the sequence as nothing
    expect(displayWidth('\x1b[8mhidden\x1b[0m')).toBe(terminalText('\x1b[8mhidden\x1b[0m').length);
    expect(displayWidth('日本\u202e')).toBe(4 + '\\u202e'.length);
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('a\tb')).toBe(9);
  });

  it('escapeChar names the astral characters with \\u{…}', () => {
    expect(escapeChar('\u{e0041}')).toBe('\\u{e0041}');
    expect(escapeChar('\u2066')).toBe('\\u2066');
  });
});

describe('terminalPieces', () => {
  it('alternates plain text and escapes, neighbouring escapes as one piece, and joins to terminalText', () => {
    expect(terminalPieces('plain')).toEqual(['plain']);
    expect(terminalPieces('\x1b[8mx')).toEqual(['', '\\x1b', '[8mx']);
    expect(terminalPieces('a\x1b\x07b\tc\r\nd\r')).toEqual(['a', '\\x1b\\x07', `b${' '.repeat(6)}c\nd`, '\\r', '']);
    const nasty = 'x\b\by\u202ez';
    expect(terminalPieces(nasty).join('')).toBe(terminalText(nasty));
  });
});

describe('forStream and terminalStream', () => {
  it('sanitises for a terminal, passes exact text to a pipe', () => {
    expect(forStream({ isTTY: true }, 'x\x1b]0;t\x07')).toBe('x\\x1b]0;t\\x07');
    expect(forStream({ isTTY: false }, 'x\x1b]0;t\x07')).toBe('x\x1b]0;t\x07');
  });

  it('keeps a CR LF split between two chunks a line break and escapes a lone CR at the end', () => {
    const out: string[] = [];
    const s = terminalStream((t) => out.push(t));
    s.write('one\r');
    s.write('\ntwo\x1b');
    s.write('[2J\r');
    s.end();
    expect(out.join('')).toBe('one\r\ntwo\\x1b[2J\\r');
  });
});
