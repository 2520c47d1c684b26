/**
 * Scrubbing text that arrives in pieces (a model's streamed answer): a credential split across two
 * deltas is caught by holding back the end of the text that could be the start of one, until the
 * next piece or the end of the run shows what it is, and by never cutting inside a whole one. Two
 * things are held back: the longest end of the text that begins a credential Keen knows (in any
 * spelling `credentials` lists), and a trailing word that is, or could still become, a value in a
 * known credential format (`sk-…`, a JWT, `Bearer <token>`, a URL with userinfo or `?key=`: see
 * secret-formats.ts), so a format match is never redacted in part with its rest shown. A word is
 * held at most HOLD_WORD_CHARS; `flush` gives out what was held (scrubbed) when the run ends.
 */
import { FORMAT_MARKERS, mayHoldFormat } from './secret-formats.js';

export class StreamScrubber {
  private pending = '';

  constructor(
    private readonly scrub: (text: string) => string,
    private readonly credentials: () => readonly string[],
  ) {}

  /** The next piece; returns what may be shown now (possibly ''). */
  push(piece: string): string {
    const text = this.pending + piece;
    const cut = safeCut(text, this.credentials());
    this.pending = text.slice(cut);
    return cut > 0 ? this.scrubPiece(text.slice(0, cut)) : '';
  }

  /** The end of the run: what was held back, scrubbed. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest ? this.scrubPiece(rest) : '';
  }

  /**
   * A URL's scheme is an ordinary word, shown before its `://` arrives: a piece that starts with
   * `://` is scrubbed as if a scheme stood before it, so its userinfo still goes.
   */
  private scrubPiece(piece: string): string {
    return piece.startsWith('://') ? this.scrub(`x${piece}`).slice(1) : this.scrub(piece);
  }
}

/** A trailing word longer than this is let out even when it looks like a token (a base64 blob). */
export const HOLD_WORD_CHARS = 4096;

/**
 * Where `text` may be cut so that the part before it can be scrubbed and shown alone: before any
 * end that could begin one of `credentials` or a known format, and never inside a whole
 * occurrence of a credential (pure).
 */
export function safeCut(text: string, credentials: readonly string[]): number {
  let cut = text.length - Math.max(heldBack(text, credentials), formatHold(text));
  for (let moved = true; moved && cut > 0; ) {
    moved = false;
    for (const c of credentials) {
      const start = text.lastIndexOf(c, cut - 1);
      if (start !== -1 && start + c.length > cut) {
        cut = start;
        moved = true;
      }
    }
  }
  return cut;
}

/** How many characters at the end of `text` could begin one of `credentials` (pure). */
export function heldBack(text: string, credentials: readonly string[]): number {
  let best = 0;
  for (const c of credentials) {
    for (let k = Math.min(c.length - 1, text.length); k > best; k--) {
      if (text.endsWith(c.slice(0, k))) {
        best = k;
        break;
      }
    }
  }
  return best;
}

/** A query parameter's name still arriving (`?api_k`): its value may follow. */
const QUERY_NAME_TAIL = /[?&][a-z_-]*$/i;
/** `Bearer`, then its token (still coming): held from the word on. */
const BEARER_TAIL = /\bb(?:e(?:a(?:r(?:e(?:r(?:\s+\S*)?)?)?)?)?)?$/i;

/**
 * How many characters at the end of `text` are a word that holds, or could grow into, a value in a
 * known credential format (pure).
 */
export function formatHold(text: string): number {
  const bearer = BEARER_TAIL.exec(text);
  if (bearer) return bearer[0].length;
  const word = /\S*$/.exec(text)?.[0] ?? '';
  if (!word || word.length > HOLD_WORD_CHARS) return 0;
  if (mayHoldFormat(word) || QUERY_NAME_TAIL.test(word) || endsInMarkerStart(word) || /:\/?$/.test(word)) return word.length;
  return 0;
}

/** True when `word` ends in the first characters of a marker that start at a word boundary. */
function endsInMarkerStart(word: string): boolean {
  for (const m of FORMAT_MARKERS) {
    for (let k = Math.min(m.length - 1, word.length); k > 0; k--) {
      const at = word.length - k;
      if (word.endsWith(m.slice(0, k)) && (at === 0 || !/\w/.test(word[at - 1]))) return true;
    }
  }
  return false;
}
