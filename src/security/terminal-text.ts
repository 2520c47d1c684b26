/**
 * The one sanitiser for text Keen draws but did not write itself (model output, tool arguments
 * and output, file names, config values, MCP data, provider error bodies, session titles).
 * A terminal obeys the bytes it is sent: ESC starts sequences that set the clipboard (OSC 52),
 * the window title (OSC 0), hide text (SGR 8) or move the cursor; BS and CR overwrite what is
 * already shown; bidi controls reorder a line and zero-width characters hide text. None of them
 * reaches the terminal from here: each is shown as a visible escape in one convention, the
 * JavaScript one (`\x1b`, `\b`, `\r`, `\u202e`, `\u{e0041}`), so the screen shows what is really
 * there. Keen's own styling (Ink/chalk colours) is applied after this and is untouched.
 *
 * Escaped (see UNSAFE):
 * - C0 controls U+0000–U+001F except LF (kept) and TAB (expanded or kept, per `tabs`); CR LF
 *   is a line break and becomes LF in `expand` mode (a lone CR is escaped: it overwrites a line);
 * - DEL U+007F and the C1 controls U+0080–U+009F (U+009B is CSI on some terminals);
 * - bidi controls: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069;
 * - invisible characters: U+00AD, U+180E, U+200B, U+2028, U+2029, U+2060–U+2064, U+FEFF,
 *   U+FFF9–U+FFFB, and the tag characters U+E0000–U+E007F (hidden "ASCII smuggling") except
 *   in an emoji tag sequence (🏴 + tags + U+E007F, the flags of England, Scotland, Wales).
 * Kept: everything else, including wide CJK characters, emoji, ZWJ/ZWNJ (U+200C, U+200D: they
 * join emoji and Indic/Persian letters) and the variation selectors.
 */

const UNSAFE_CLASS =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}';

/** Any character this module escapes (TAB and LF excluded). */
export const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, 'u');

/** An emoji tag sequence (kept whole), CR LF, a lone tab, or one unsafe character. */
const TOKEN = new RegExp(`(\\u{1f3f4}[\\u{e0020}-\\u{e007e}]+\\u{e007f})|(\\r\\n)|(\\t)|([${UNSAFE_CLASS}])`, 'gu');

const NAMED: Record<string, string> = { '\0': '\\0', '\b': '\\b', '\v': '\\v', '\f': '\\f', '\r': '\\r' };

/** The visible escape of one character: `\b`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

export interface TerminalTextOptions {
  /**
   * `expand` (the REPL: Ink measures a tab as no column, the terminal moves to the next stop, so
   * the layout would break): tabs become spaces to the next multiple of 8 in their line, CR LF
   * becomes LF. `keep` (plain output to a terminal, where the terminal lays out tabs itself):
   * tabs and CR LF stay.
   */
  tabs?: 'expand' | 'keep';
}

/** `text` with every unsafe character as a visible escape (identity for ordinary text). */
export function terminalText(text: string, opts: TerminalTextOptions = {}): string {
  const pieces = terminalPieces(text, opts);
  return pieces.length === 1 ? pieces[0] : pieces.join('');
}

/**
 * `terminalText` in pieces, plain text at even indexes and escapes at odd ones (`['a', '\\x1b',
 * '[8m']`), so a view can draw the escapes apart from the text (the REPL shows them inverse).
 * Ordinary text is one piece, `[text]`.
 */
export function terminalPieces(text: string, opts: TerminalTextOptions = {}): string[] {
  const expand = (opts.tabs ?? 'expand') === 'expand';
  if (!UNSAFE.test(text) && !(expand && (text.includes('\t') || text.includes('\r')))) return [text];
  // Column bookkeeping for tab stops: where the current line starts, where it ends, and the
  // columns added to it so far by expanded tabs and escapes (one scan per line, not per token).
  let lineStart = 0;
  let lineEnd = -1;
  let shift = 0;
  const enterLineOf = (offset: number) => {
    if (offset <= lineEnd) return;
    lineStart = text.lastIndexOf('\n', offset) + 1;
    const nl = text.indexOf('\n', offset);
    lineEnd = nl === -1 ? Number.POSITIVE_INFINITY : nl;
    shift = 0;
  };
  const pieces: string[] = [];
  let plain = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const [match, flag, crlf, tab] = m;
    const offset = m.index;
    plain += text.slice(last, offset);
    last = offset + match.length;
    if (flag) plain += flag;
    else if (crlf) plain += expand ? '\n' : '\r\n';
    else if (tab && !expand) plain += '\t';
    else {
      enterLineOf(offset);
      const out = tab ? ' '.repeat(8 - ((offset - lineStart + shift) % 8)) : escapeChar(match);
      shift += out.length - match.length;
      if (tab) plain += out;
      else if (pieces.length === 0 || plain) {
        pieces.push(plain, out);
        plain = '';
      } else pieces[pieces.length - 1] += out; // an escape right after an escape
    }
  }
  pieces.push(plain + text.slice(last)); // a plain piece, perhaps '', ends the list
  return pieces;
}

/**
 * `text` for a place that must stay one line (the trust question, a `keen:` line) when it quotes
 * what a repository chose: each line break shown as `\n`, so the text cannot add a line of its
 * own. Content, not rendering: apply it before `terminalText`, piped output included.
 */
export function oneLineText(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}

/** `terminalText` when `stream` is a terminal, the exact text otherwise (a pipe or file gets the data). */
export function forStream(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY ? terminalText(text, { tabs: 'keep' }) : text;
}

/**
 * Sanitises text written to a terminal in chunks (streamed model text): a CR at the end of one
 * chunk waits for the next, so a CR LF split between two chunks stays a line break.
 */
export function terminalStream(write: (text: string) => void): { write(text: string): void; end(): void } {
  let pendingCr = false;
  return {
    write(text: string) {
      if (!text) return;
      let chunk = pendingCr ? `\r${text}` : text;
      pendingCr = chunk.endsWith('\r');
      if (pendingCr) chunk = chunk.slice(0, -1);
      if (chunk) write(terminalText(chunk, { tabs: 'keep' }));
    },
    end() {
      if (pendingCr) write(escapeChar('\r'));
      pendingCr = false;
    },
  };
}
