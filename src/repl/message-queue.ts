import { QUEUE_LIMIT } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';

/**
 * The messages typed while the agent works: the store's queue (what the queue view draws) plus
 * which of them were pasted, since a paste is a message and never runs as a command.
 */
export class MessageQueue {
  private readonly pasted = new Set<string>();

  constructor(private readonly store: UiStore) {}

  get length(): number {
    return this.store.getState().queue.length;
  }

  /** Queue `text`; false (nothing queued) when the queue is full. */
  push(text: string, pasted = false): boolean {
    if (this.length >= QUEUE_LIMIT) return false;
    this.store.dispatch({ type: 'queue-push', text });
    if (pasted) this.pasted.add(text);
    return true;
  }

  /** Take the oldest message, or undefined when none waits. */
  shift(): { text: string; pasted: boolean } | undefined {
    const text = this.store.getState().queue[0];
    if (text === undefined) return undefined;
    this.store.dispatch({ type: 'queue-shift' });
    return { text, pasted: this.pasted.delete(text) };
  }

  /** The queued messages (then what is being typed) become the input, one a line, for editing. */
  recall(): void {
    const { queue, editor } = this.store.getState();
    if (queue.length === 0) return;
    this.pasted.clear();
    this.store.dispatch({ type: 'queue-clear' });
    this.store.dispatch({ type: 'edit', command: { type: 'set', text: [...queue, editor.text].filter(Boolean).join('\n') } });
  }
}
