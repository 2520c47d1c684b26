/**
 * The transcript as plain scrollback text. Ink's `<Static>` costs about half a millisecond per
 * item (React, Yoga, and Ink's cell-by-cell output buffer), so a resumed 500-turn session took
 * about a second before the prompt came, and every resize paid it again. Instead:
 *
 * - `take` renders a long replay's last items — those that fill {@link SCREENS} screens — and
 *   writes them at once above the frame (`<Static>` draws none of the replay); the prompt is up.
 * - `redraw` renders every item with Ink's `renderToString` of the same `TranscriptItemView` that
 *   `<Static>` draws (so the text, colours and wrapping are the same), a slice at a time between
 *   event-loop turns so keys keep working, then writes the whole transcript in one write: clear
 *   the screen and scrollback, every item, and Ink puts its live frame back below.
 * - Rendered text is cached per item for the last {@link CACHED_WIDTHS} widths: a resize back to
 *   one of them is one write.
 *
 * `<Static>` prints `item + "\n"` for every item it draws (`renderToString` of items in a column
 * equals their strings joined with newlines), which is what `redraw` writes.
 */
import { Box, renderToString } from 'ink';
import { ColumnsContext } from './components/columns.js';
import { Text } from './components/text.js';
import { TRANSCRIPT_STYLE, TranscriptItemView } from './components/transcript-item.js';
import type { NewItem, TranscriptItem } from './state/ui-state.js';
import { CLEAR_SCREEN } from './terminal.js';

/** Screens of lines `<Static>` draws at once on a resume; older items go to plain scrollback. */
export const SCREENS = 2;
/** Rendering time between two event-loop turns while the scrollback is rebuilt (keys stay live). */
export const SLICE_MS = 8;

export interface ScrollbackIo {
  columns(): number;
  rows(): number;
  /** The transcript as it is now (the store's items). */
  items(): readonly TranscriptItem[];
  /** A background redraw failed (a render error). */
  onError?(err: unknown): void;
}

/** What the runtime needs of it (absent in tests that render the App alone: all goes to Static). */
export interface TranscriptScrollback {
  /**
   * A replay about to be added: when `items` are more than fill {@link SCREENS} screens, write
   * the last screens now and the whole transcript in the background, and return true (the
   * caller keeps them out of `<Static>`); false: `<Static>` draws them.
   */
  take(items: readonly NewItem[]): boolean;
  /** The terminal's size now (what the permission prompt must fit). */
  size?(): { rows: number; columns: number };
  /** Clear the screen and write the whole transcript again (Ctrl+L). */
  redraw?(opts?: { tailFirst?: boolean }): Promise<void>;
}

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A line between items of a batch: private-use characters, no style. */
const SEPARATOR = '\u{F8FF}\u{F8FE}\u{F8FF}';
/** Items rendered in one `renderToString` (one React root, one layout, one output buffer). */
export const BATCH_ITEMS = 8;
/** Widths whose text is kept per item (the oldest goes first: dragging a window edge through many widths). */
export const CACHED_WIDTHS = 3;

/**
 * Transcript items as `<Static>` prints them at `columns`, one string each (without the newline
 * after it). Rendered together, with a separator line between them, in a box laid out as the
 * app's `<Static>` box (a full-width column: TRANSCRIPT_STYLE), then split — one render instead of
 * one per item (a React root, a layout and an output buffer each). If the separators do not split the output into as many parts
 * as items (an item drew nothing, or its text holds the separator), each item is rendered alone.
 *
 * Not in a `<Static>` of its own: Ink's reconciler remembers the root of the last `<Static>`
 * created in a module variable and marks that root dirty on every later `<Static>` update, so a
 * `<Static>` rendered here would keep the app's own `<Static>` from printing new items.
 */
export function renderItems(items: readonly NewItem[], columns: number): string[] {
  const render = (batch: readonly NewItem[]) =>
    renderToString(
      <ColumnsContext.Provider value={columns}>
        <Box flexDirection="column" width={TRANSCRIPT_STYLE.width}>
          {batch.flatMap((item, i) => [...(i > 0 ? [<Text key={`s${i}`}>{SEPARATOR}</Text>] : []), <TranscriptItemView key={i} item={item as TranscriptItem} />])}
        </Box>
      </ColumnsContext.Provider>,
      { columns },
    );
  if (items.length > 1) {
    const parts = render(items).split(`\n${SEPARATOR}\n`);
    if (parts.length === items.length) return parts;
  }
  return items.map((item) => render([item]));
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export class Scrollback implements TranscriptScrollback {
  private readonly cache = new WeakMap<object, Map<number, string>>();
  private write?: (data: string) => void;
  private job = 0;

  constructor(private readonly io: ScrollbackIo) {}

  /** Ink's "write above the live frame" (`useStdout().write`), set once the App is mounted. */
  attach(write: (data: string) => void): void {
    this.write = write;
  }

  /** `item` at `columns`, rendered once per width. */
  text(item: NewItem, columns: number): string {
    const text = this.cache.get(item)?.get(columns);
    if (text !== undefined) return text;
    this.render([item], columns);
    return this.cache.get(item)?.get(columns) as string;
  }

  private cached(item: NewItem, columns: number): boolean {
    return this.cache.get(item)?.has(columns) === true;
  }

  /** Render `items` (those not cached at `columns`) in batches and cache them. */
  private render(items: readonly NewItem[], columns: number): void {
    const missing = items.filter((item) => !this.cached(item, columns));
    for (let i = 0; i < missing.length; i += BATCH_ITEMS) {
      const batch = missing.slice(i, i + BATCH_ITEMS);
      const texts = renderItems(batch, columns);
      batch.forEach((item, k) => {
        let byWidth = this.cache.get(item);
        if (!byWidth) {
          byWidth = new Map();
          this.cache.set(item, byWidth);
        }
        byWidth.set(columns, texts[k]);
        if (byWidth.size > CACHED_WIDTHS) byWidth.delete(byWidth.keys().next().value as number);
      });
    }
  }

  /** Index of the first of the last items of `items` that fill the budget (0: they all fit). */
  private tailStart(items: readonly NewItem[], columns: number): number {
    const budget = Math.max(1, this.io.rows()) * SCREENS;
    let lines = 0;
    for (let end = items.length; end > 1; end -= BATCH_ITEMS) {
      const from = Math.max(1, end - BATCH_ITEMS);
      this.render(items.slice(from, end), columns);
      for (let i = end - 1; i >= from; i--) {
        lines += lineCount(this.text(items[i], columns));
        if (lines >= budget) return i;
      }
    }
    return 0;
  }

  size(): { rows: number; columns: number } {
    return { rows: this.io.rows(), columns: this.io.columns() };
  }

  take(items: readonly NewItem[]): boolean {
    const write = this.write;
    if (!write) return false;
    const columns = this.io.columns();
    const from = this.tailStart(items, columns);
    if (from === 0) return false;
    write(this.join(items.slice(from), columns));
    this.redraw().catch((err: unknown) => this.io.onError?.(err));
    return true;
  }

  /**
   * Render what is missing at the current width (in slices; a newer call or a width change
   * cancels this one), then clear the screen and write every item in one write. With `tailFirst`
   * (a resize to a new width) the last screens are written at once, so what is on screen is right
   * at the new width while the older part renders.
   */
  async redraw(opts: { tailFirst?: boolean } = {}): Promise<void> {
    const write = this.write;
    if (!write) return;
    const job = ++this.job;
    const columns = this.io.columns();
    let first: TranscriptItem | undefined;
    // A newer redraw, another width, or a transcript replaced meanwhile (/clear, /resume).
    const cancelled = () => job !== this.job || this.io.columns() !== columns || (first !== undefined && this.io.items()[0] !== first);
    const cached = (item: NewItem) => this.cached(item, columns);
    if (opts.tailFirst) {
      const items = this.io.items();
      const from = items.every(cached) ? 0 : this.tailStart(items, columns);
      if (from > 0) write(CLEAR_SCREEN + this.join(items.slice(from), columns));
    }
    // Let the store and React take what was dispatched with this call, then render in slices.
    await yieldTurn();
    if (cancelled()) return;
    first = this.io.items()[0];
    const missing = this.io.items().filter((item) => !cached(item));
    let slice = performance.now();
    for (let i = 0; i < missing.length; i += BATCH_ITEMS) {
      if (performance.now() - slice > SLICE_MS) {
        await yieldTurn();
        if (cancelled()) return;
        slice = performance.now();
      }
      this.render(missing.slice(i, i + BATCH_ITEMS), columns);
    }
    // Items drawn by <Static> meanwhile are in the store by now: this write includes them.
    write(CLEAR_SCREEN + this.join(this.io.items(), columns));
  }

  private join(items: readonly NewItem[], columns: number): string {
    let out = '';
    for (const item of items) out += this.text(item, columns) + '\n';
    return out;
  }
}
