import { QUEUE_LIMIT } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';

/**
 * Where a submitted line came from. `pasted`: it holds pasted text, so it is a message and never
 * runs as a command. `shown`: what the transcript shows for it (long pastes as their labels) when
 * that differs from the text sent.
 */
export interface InputOrigin {
  pasted?: boolean;
  shown?: string;
}

/**
 * The messages typed while the agent works: the store's queue (what the queue view draws: the
 * shown text) plus, for each, the text to send and where it came from.
 */
export class MessageQueue {
  private entries: { text: string; origin: InputOrigin }[] = [];

  constructor(private readonly store: UiStore) {}

  get length(): number {
    return this.store.getState().queue.length;
  }

  /** Queue `text`; false (nothing queued) when the queue is full. */
  push(text: string, origin: InputOrigin = {}): boolean {
    if (this.length >= QUEUE_LIMIT) return false;
    this.store.dispatch({ type: 'queue-push', text: origin.shown ?? text });
    this.entries.push({ text, origin });
    return true;
  }

  /** Take the oldest message, or undefined when none waits. */
  shift(): { text: string; origin: InputOrigin } | undefined {
    const head = this.store.getState().queue[0];
    if (head === undefined) return undefined;
    this.store.dispatch({ type: 'queue-shift' });
    // A row queued straight into the store (a picker's choice) has no entry: it is its own text.
    return this.take(head) ?? { text: head, origin: {} };
  }

  private take(shown: string): { text: string; origin: InputOrigin } | undefined {
    const at = this.entries.findIndex((e) => (e.origin.shown ?? e.text) === shown);
    return at < 0 ? undefined : this.entries.splice(at, 1)[0];
  }

  /** The queued messages (then what is being typed) become the input, one a line, for editing (long pastes whole). */
  recall(): void {
    const { queue, editor } = this.store.getState();
    if (queue.length === 0) return;
    const texts = queue.map((shown) => this.take(shown)?.text ?? shown);
    this.entries = [];
    this.store.dispatch({ type: 'queue-clear' });
    this.store.dispatch({ type: 'edit', command: { type: 'set', text: [...texts, editor.text].filter(Boolean).join('\n') } });
  }
}
