/**
 * Typed-ahead keys never answer a permission prompt. Keen invites typing while it works (the
 * queue) and the prompt takes single-key answers, so a key that arrives while the prompt appears
 * was meant for the input. The guard holds from the moment the prompt opens until the keyboard
 * has been quiet for `ms`: every key inside it goes to the input and restarts it, so a word typed
 * through the prompt's appearance never reaches it, however long the word.
 */

/** How long the keyboard must be quiet after a prompt opens before the prompt takes keys. */
export const PROMPT_GUARD_MS = 400;

export class PromptGuard {
  private last?: number;

  constructor(readonly ms: number = PROMPT_GUARD_MS) {}

  /** A prompt opened at `now`. */
  open(now: number): void {
    this.last = now;
  }

  /** The prompt closed. */
  close(): void {
    this.last = undefined;
  }

  /** Whether a key arriving at `now` is held back from the prompt (it goes to the input). */
  holds(now: number): boolean {
    if (this.last === undefined || now - this.last >= this.ms) return false;
    this.last = now;
    return true;
  }
}
