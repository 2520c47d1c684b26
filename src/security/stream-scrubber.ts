/**
 * Scrubbing text that arrives in pieces (a model's streamed answer): a credential split across two
 * deltas is caught by holding back the end of the text that could be the start of one, until the
 * next piece or the end of the run shows what it is. What is held back is never more than the
 * longest credential, and `flush` gives it out (scrubbed) when the run ends.
 */
export class StreamScrubber {
  private pending = '';

  constructor(
    private readonly scrub: (text: string) => string,
    private readonly credentials: () => readonly string[],
  ) {}

  /** The next piece; returns what may be shown now (possibly ''). */
  push(piece: string): string {
    const text = this.scrub(this.pending + piece);
    const hold = heldBack(text, this.credentials());
    this.pending = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  /** The end of the run: what was held back, scrubbed. */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest ? this.scrub(rest) : '';
  }
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
