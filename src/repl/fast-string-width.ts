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
 */
import stringWidth from 'string-width';

type Options = Parameters<typeof stringWidth>[1];

/** One column each, alone or next to each other, with string-width's default options. */
export const NARROW_RUN = /^[\u0020-\u007E\u00A0-\u00AC\u00AE-\u00FF\u2010-\u2027\u2030-\u203B\u203D-\u2046\u2500-\u259F]*$/;

const CACHE_LIMIT = 4096;
const cache = new Map<string, number>();

export default function fastStringWidth(text: string, options?: Options): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const defaults = options === undefined || (options.ambiguousIsNarrow !== false && !options.countAnsiEscapeCodes);
  if (!defaults) return stringWidth(text, options);
  if (NARROW_RUN.test(text)) return text.length;
  let width = cache.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, width);
  }
  return width;
}
