/**
 * Bridges the tool loop's permission questions to the screen: `ask` shows the prompt and resolves
 * with the user's answer. One question at a time (the session gate already serialises them).
 * The gate that asks through it is repl-gate.ts, loaded with the session: this module (on the
 * way to the first prompt) needs none of the permission engine.
 */
import type { SessionAnswer } from '../tools/permissions/index.js';
import type { PermissionRequest } from '../tools/types.js';
import { promptDetail, promptDetailBudget } from './components/permission-prompt.js';
import type { UiStore } from './state/ui-store.js';
import { PromptGuard, PROMPT_GUARD_MS } from './input/prompt-guard.js';

/** The terminal's size (absent: not a terminal REPL; the prompt's diff is only capped). */
export type TerminalSize = () => { rows: number; columns: number } | undefined;

export class PermissionBroker {
  private pending?: { resolve: (answer: SessionAnswer) => void; request: PermissionRequest; above: boolean };
  private readonly guard: PromptGuard;
  /** Told each time a question opens (the session's Notification hooks). */
  onOpen?: (request: PermissionRequest) => void;

  constructor(
    private readonly store: UiStore,
    private readonly size?: TerminalSize,
    guardMs: number = PROMPT_GUARD_MS,
  ) {
    this.guard = new PromptGuard(guardMs);
  }

  /** Whether a key arriving now is typed-ahead text for the input, not an answer (input/prompt-guard.ts). */
  holdsKey(now = Date.now()): boolean {
    return this.pending !== undefined && this.guard.holds(now);
  }

  /**
   * A diff or bash command the prompt would have to cut to keep its question and answers on
   * screen is written whole to the transcript first (the scrollback above the prompt), so every
   * line can be read before answering.
   */
  private writeWholeDetail(request: PermissionRequest): boolean {
    const size = this.size?.();
    const lines = promptDetail({ request, selected: 0 });
    if (!size || !lines || !request.detail) return false;
    if (lines.length <= promptDetailBudget({ request, selected: 0 }, size.rows, size.columns)) return false;
    const title = `${request.tool}: ${request.summary}`;
    this.store.dispatch({ type: 'append', items: [request.tool === 'bash' ? { kind: 'block', title, lines } : { kind: 'diff', title, diff: request.detail }] });
    return true;
  }

  get asking(): boolean {
    return this.pending !== undefined;
  }

  ask(request: PermissionRequest): Promise<SessionAnswer> {
    this.answer('deny');
    return new Promise<SessionAnswer>((resolve) => {
      if (request.detail && (request.tool === 'edit_file' || request.tool === 'write_file')) {
        this.store.dispatch({ type: 'tool-diff', diff: request.detail });
      }
      const above = this.writeWholeDetail(request);
      this.pending = { resolve, request, above };
      this.guard.open(Date.now());
      this.store.dispatch({ type: 'permission-open', request, fullDiffAbove: above });
      this.onOpen?.(request);
    });
  }

  /**
   * The terminal changed size while a question is open: a detail that fit when it opened and
   * would be cut now is written whole above the prompt too.
   */
  refit(): void {
    const pending = this.pending;
    if (!pending || pending.above || !this.writeWholeDetail(pending.request)) return;
    pending.above = true;
    this.store.dispatch({ type: 'permission-detail-above' });
  }

  /** Answer the open question (no-op when none is open). */
  answer(answer: SessionAnswer): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.guard.close();
    this.store.dispatch({ type: 'permission-close' });
    pending.resolve(answer);
  }
}
