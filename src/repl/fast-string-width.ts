/**
 * string-width with a fast path, for Keen and for every package in the bundle that measures text
 * (Ink, wrap-ansi, widest-line, cli-truncate): scripts/build.mjs resolves their `string-width`
 * imports here. string-width returns `length` at once only for printable ASCII; anything else —
 * the `·`, `…`, `›` and box-drawing lines of every frame — goes through Intl.Segmenter and three
 * Unicode-property regexes, which cost the REPL's first frames tens of milliseconds while cold.
 *
 * The fast path covers characters that are one column whatever their neighbours: printable
 * ASCII, printable Latin-1 (no soft hyphen), the General Punctuation quotes, dashes, bullets and
 * ellipsis (no emoji such as ‼ or ⁉), box drawing and block elements. For them string-width
 * returns the length too, which `test/repl/fast-string-width.test.ts` checks character by
 * character against string-width itself; everything else (ANSI codes, other options, wide or
 * combining characters, emoji) is string-width's answer, remembered for the strings seen most.
 * SGR colour and style codes (the common escapes of a frame) are removed first, as string-width
 * removes every escape before measuring.
 *
 * string-width itself loads at the first string the fast path leaves to it (`createRequire`, as
 * marked and yaml load): its import builds a grapheme segmenter and Unicode-property regexes (the
 * `RGI_Emoji` one alone takes tens of milliseconds to build on Node 24), which used to sit between
 * the painted frame and Ink's prompt taking keys.
 */
import { createRequire } from 'node:module';

type StringWidth = typeof import('string-width').default;
type Options = Parameters<StringWidth>[1];

let loaded: StringWidth | undefined;
function stringWidth(text: string, options?: Options): number {
  loaded ??= (createRequire(import.meta.url)('string-width') as { default: StringWidth }).default;
  return loaded(text, options);
}

/** One column each, alone or next to each other, with string-width's default options. */
export const NARROW_RUN = /^[\u0020-\u007E\u00A0-\u00AC\u00AE-\u00FF\u2010-\u2027\u2030-\u203B\u203D-\u2046\u2500-\u259F]*$/;

/**
 * SGR sequences as string-width's escape remover takes them out whole (parameters of at most four
 * digits each): what is left of a string without other escapes is the text it measures.
 */
const SGR = /\x1b\[(?:\d{1,4}(?:;\d{0,4})*)?m/g;

const CACHE_LIMIT = 4096;
const cache = new Map<string, number>();

export default function fastStringWidth(text: string, options?: Options): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const defaults = options === undefined || (options.ambiguousIsNarrow !== false && !options.countAnsiEscapeCodes);
  if (!defaults) return stringWidth(text, options);
  if (NARROW_RUN.test(text)) return text.length;
  if (text.includes('\x1b')) {
    const plain = text.replace(SGR, '');
    if (NARROW_RUN.test(plain)) return plain.length;
  }
  let width = cache.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, width);
  }
  return width;
}
