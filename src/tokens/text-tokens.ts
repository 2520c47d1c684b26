/**
 * Counting the tokens of a text without a tokenizer: one pass that mirrors o200k's pre-tokenizer
 * split (words with an optional one-character prefix and camelCase boundaries, digit groups of up
 * to three, punctuation runs, whitespace runs) and prices each piece from tables fitted against
 * `gpt-tokenizer`'s o200k encoding. See token-estimator.ts for why and how well.
 */

// ---- character classes ----------------------------------------------------------------------

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const PUNCT = 6;
/** A letter or mark without case (Lo, Lm, M): joins words on either side of a case boundary. */
const UNCASED = 7;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_CLASS[c] =
    c >= 65 && c <= 90
      ? UPPER
      : c >= 97 && c <= 122
        ? LOWER
        : c >= 48 && c <= 57
          ? DIGIT
          : c === 10 || c === 13
            ? NEWLINE
            : c === 32 || c === 9 || c === 11 || c === 12
              ? SPACE
              : PUNCT;
}

const RE_UPPER = /[\p{Lu}\p{Lt}]/u;
const RE_LOWER = /\p{Ll}/u;
const RE_UNCASED = /[\p{Lm}\p{Lo}\p{M}]/u;
const RE_NUMBER = /\p{N}/u;
const RE_SPACE = /\s/u;
/** Classes of the non-ASCII code points seen so far (bounded by Unicode itself). */
const nonAsciiClass = new Map<number, number>();

function classOfCodePoint(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp];
  let k = nonAsciiClass.get(cp);
  if (k === undefined) {
    const ch = String.fromCodePoint(cp);
    k = RE_UPPER.test(ch) ? UPPER : RE_LOWER.test(ch) ? LOWER : RE_UNCASED.test(ch) ? UNCASED : RE_NUMBER.test(ch) ? DIGIT : RE_SPACE.test(ch) ? SPACE : PUNCT;
    nonAsciiClass.set(cp, k);
  }
  return k;
}

function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? ASCII_CLASS[c] : classOfCodePoint(text.codePointAt(i)!);
}

function widthAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
}

function isLetter(k: number): boolean {
  return k === UPPER || k === LOWER || k === UNCASED;
}

function isCjk(cp: number): boolean {
  return (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0xf900 && cp <= 0xfaff) || cp >= 0x20000;
}

// ---- fitted prices (tokens per piece), from o200k on ~2.2 MB of mixed text --------------------
// Fitted on code (TS/JS, Python, C), JSON, Markdown, prose, diffs, shell output, hashes and
// base64 from outside this repository; checked on test/fixtures/estimator-corpus (held out).

/** ASCII word of 1..12 letters, by prefix kind: [none, space, other character]. */
const WORD_PRICE = [
  [0, 1, 1.09, 1.29, 1.22, 1.21, 1.22, 1.23, 1.34, 1.7, 2.03, 1.58, 1.69],
  [0, 1, 1.01, 1.06, 1.03, 1.08, 1.08, 1.27, 1.2, 1.26, 1.38, 1.3, 1.36],
  [0, 1.02, 1.28, 1.39, 1.3, 1.46, 1.43, 1.61, 1.96, 2.06, 2.26, 2.56, 2.79],
];
/** Tokens per letter of an ASCII word longer than 12 letters, by prefix kind. */
const LONG_WORD_RATE = [0.268, 0.105, 0.257];
const MAX_TABLE_WORD = 12;

/**
 * Added to a word's price by its shape: lower / Capitalised / UPPER / MIXed (two or more capitals
 * before lower case, as in base64), each plain or vowel-poor (fewer than one vowel in four
 * letters: hashes, abbreviations). Columns: length 1–2, 3, 4, 5–6, 7–9, 10+.
 */
const SHAPE_EXTRA = [
  [-0.01, -0.11, -0.06, -0.06, -0.09, -0.09], // lower
  [0, 0.15, 0.69, 0.12, 0.42, 2.65], // lower, vowel-poor
  [0.06, 0.18, -0.05, -0.06, -0.06, -0.35], // Capitalised
  [0, 0.66, 1.42, -0.01, 0.37, 1.68], // Capitalised, vowel-poor
  [0.07, 0.02, 0.19, 0.12, 1.1, 0.38], // UPPER
  [0, 0.24, 0.67, 0.78, 1.74, 0], // UPPER, vowel-poor
  [0, 0.4, 1.11, 1.51, 1.69, 0.43], // MIXed
  [0, 0.83, 1.35, 1.97, 2.83, 1.41], // MIXed, vowel-poor
];
const SHAPE_LENGTH_COLUMN = [0, 0, 0, 1, 2, 3, 3, 4, 4, 4];

/** Tokens per UTF-16 unit of a word holding CJK / other non-ASCII letters. */
const CJK_RATE = 0.807;
const OTHER_SCRIPT_RATE = 0.429;

/**
 * Punctuation run of 1..8 characters (leading space and trailing newlines/slashes included), by
 * variant: [plain, ends in a newline, starts with a space, both].
 */
const PUNCT_PRICE = [
  [0, 1, 1.01, 1.1, 1.67, 1.94, 2.25, 2.41, 3.28],
  [0, 1, 1, 1, 1.11, 1.75, 1.93, 3.09, 3.26],
  [0, 1, 1, 1.02, 1.19, 1.77, 2.34, 2.36, 2.92],
  [0, 1, 1.01, 1, 1.02, 1.11, 1.94, 2.29, 2.62],
];
const LONG_PUNCT_RATE = 0.246;
/** `-----`, `=====`, `*****`: o200k has long tokens for many repeated characters. */
const REPEATED_PUNCT_RATE = 0.079;

const VOWEL = new Uint8Array(128);
for (const ch of 'aeiouyAEIOUY') VOWEL[ch.charCodeAt(0)] = 1;

function asciiWordPrice(prefix: number, len: number, uppers: number, firstUpper: boolean, vowels: number): number {
  const base = len <= MAX_TABLE_WORD ? WORD_PRICE[prefix][len] : len * LONG_WORD_RATE[prefix];
  const shape = uppers === 0 ? 0 : uppers === 1 && firstUpper ? 2 : uppers === len ? 4 : 6;
  const poor = len >= 3 && vowels * 4 < len ? 1 : 0;
  const column = len < SHAPE_LENGTH_COLUMN.length ? SHAPE_LENGTH_COLUMN[len] : 5;
  return base + SHAPE_EXTRA[shape + poor][column];
}

function punctPrice(len: number, repeated: boolean, variant: number): number {
  if (repeated) return Math.max(1, len * REPEATED_PUNCT_RATE);
  return len <= 8 ? PUNCT_PRICE[variant][len] : Math.max(PUNCT_PRICE[0][8], len * LONG_PUNCT_RATE);
}

/** `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` (any case) right after a word: length, or 0. */
function contractionLength(text: string, j: number): number {
  if (text.charCodeAt(j) !== 39) return 0;
  const a = text.charCodeAt(j + 1) | 0x20;
  const b = text.charCodeAt(j + 2) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return 2; // s t m d
  if ((a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65) || (a === 0x6c && b === 0x6c)) return 3; // re ve ll
  return 0;
}

/** Estimated o200k token count of `text`. Pure; O(length). */
export function estimateText(text: string): number {
  const n = text.length;
  let total = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? ASCII_CLASS[c] : classAt(text, i);

    // A word, optionally led by one space or punctuation character.
    let j = i;
    let prefix = 0;
    if (k === SPACE || k === PUNCT) {
      const w = widthAt(text, i);
      if (i + w < n && isLetter(classAt(text, i + w))) {
        prefix = c === 32 ? 1 : 2;
        j = i + w;
      }
    }
    if (prefix !== 0 || isLetter(k)) {
      const start = j;
      let sawLower = false;
      let nonAscii = false;
      let cjk = false;
      let uppers = 0;
      let vowels = 0;
      while (j < n) {
        const cc = text.charCodeAt(j);
        let kk: number;
        let w = 1;
        if (cc < 128) {
          kk = ASCII_CLASS[cc];
          vowels += VOWEL[cc];
        } else {
          const cp = text.codePointAt(j)!;
          kk = classOfCodePoint(cp);
          if (cp > 0xffff) w = 2;
          nonAscii = true;
          if (isCjk(cp)) cjk = true;
        }
        if (kk === UPPER) {
          if (sawLower) break; // camelCase boundary
          uppers++;
        } else if (kk === LOWER || kk === UNCASED) sawLower = true;
        else break;
        j += w;
      }
      const len = j - start;
      total += nonAscii
        ? Math.max(1, len * (cjk ? CJK_RATE : OTHER_SCRIPT_RATE))
        : asciiWordPrice(prefix, len, uppers, uppers > 0 && ASCII_CLASS[text.charCodeAt(start)] === UPPER, vowels);
      i = j + contractionLength(text, j);
      continue;
    }

    if (k === DIGIT) {
      let d = 0;
      while (j < n && d < 3 && classAt(text, j) === DIGIT) {
        j += widthAt(text, j);
        d++;
      }
      total += 1;
      i = j;
      continue;
    }

    // Punctuation run, optionally led by one space, followed by any newlines and slashes.
    if (k === PUNCT || (c === 32 && i + 1 < n && classAt(text, i + 1) === PUNCT)) {
      if (c === 32) j++;
      const coreStart = j;
      const first = text.charCodeAt(j);
      let repeated = true;
      while (j < n && classAt(text, j) === PUNCT) {
        if (text.charCodeAt(j) !== first) repeated = false;
        j += widthAt(text, j);
      }
      const coreLength = j - coreStart;
      while (j < n) {
        const cc = text.charCodeAt(j);
        if (cc === 10 || cc === 13 || cc === 47) j++;
        else break;
      }
      const last = text.charCodeAt(j - 1);
      const variant = (last === 10 || last === 13 ? 1 : 0) + (c === 32 ? 2 : 0);
      total += punctPrice(j - i, repeated && coreLength > 3, variant);
      i = j;
      continue;
    }

    // Whitespace: up to the last newline of the run; otherwise all but the last space before
    // a non-space (that space leads the next word or punctuation run).
    let lastNewline = -1;
    while (j < n) {
      const kk = classAt(text, j);
      if (kk === NEWLINE) lastNewline = j;
      else if (kk !== SPACE) break;
      j += widthAt(text, j);
    }
    let end = j;
    if (lastNewline >= 0) end = lastNewline + 1;
    else if (j < n && j - i > 1) end = j - 1;
    total += 1 + ((end - i) >> 5);
    i = end;
  }
  return Math.ceil(total);
}
