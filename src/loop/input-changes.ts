import type { ToolCall } from '../core/message.js';

/**
 * The calls of one reply whose input a PreToolUse hook changed, as the tool loop hears of them
 * while the calls run (`ToolContext.onInputChanged`, reported by src/hooks/hooks-registry.ts
 * before the permission gate is asked). A change is handed out only once its call has started:
 * a concurrent call may be rewritten before the loop announced it, and the events of one call
 * stay in order — started, input changed, finished.
 */
export class InputChanges {
  private readonly ran = new Map<string, ToolCall>();
  private readonly pending: ToolCall[] = [];
  private readonly started = new Set<string>();
  private wake?: () => void;

  /** A hook changed `call`'s input: `call` is what runs. */
  readonly report = (call: ToolCall): void => {
    this.ran.set(call.id, call);
    this.pending.push(call);
    this.wake?.();
  };

  /** The call as it ran: the hook's input, or the model's call when no hook changed it. */
  asRun(call: ToolCall): ToolCall {
    return this.ran.get(call.id) ?? call;
  }

  /**
   * Waits for `work` (the run of `call`, which has started), handing out each change of a started
   * call as it is reported; returns what `work` resolved to (and throws what it threw).
   */
  async *during<T>(call: ToolCall, work: Promise<T>): AsyncGenerator<ToolCall, T> {
    this.started.add(call.id);
    let outcome: { value: T } | { error: unknown } | undefined;
    const settled = work.then(
      (value) => {
        outcome = { value };
      },
      (error: unknown) => {
        outcome = { error };
      },
    );
    for (;;) {
      for (let next = this.take(); next; next = this.take()) yield next;
      if (outcome) break;
      await Promise.race([settled, new Promise<void>((resolve) => (this.wake = resolve))]);
      this.wake = undefined;
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  private take(): ToolCall | undefined {
    const at = this.pending.findIndex((c) => this.started.has(c.id));
    return at < 0 ? undefined : this.pending.splice(at, 1)[0];
  }
}
