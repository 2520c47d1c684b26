/**
 * Bridges the tool loop's permission questions to the screen: `ask` shows the prompt and resolves
 * with the user's answer. One question at a time (the session gate already serialises them).
 */
import { createSessionGate, type ExplainingGate, type Policy, type SessionAnswer, type SessionGate } from '../tools/permissions/index.js';
import type { PermissionRequest } from '../tools/types.js';
import { promptDetail, promptDetailBudget } from './components/permission-prompt.js';
import type { UiStore } from './state/ui-store.js';

/** The terminal's size (absent: not a terminal REPL; the prompt's diff is only capped). */
export type TerminalSize = () => { rows: number; columns: number } | undefined;

export class PermissionBroker {
  private pending?: { resolve: (answer: SessionAnswer) => void; request: PermissionRequest; above: boolean };

  constructor(
    private readonly store: UiStore,
    private readonly size?: TerminalSize,
  ) {}

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
      this.store.dispatch({ type: 'permission-open', request, fullDiffAbove: above });
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
    this.store.dispatch({ type: 'permission-close' });
    pending.resolve(answer);
  }
}

/**
 * The REPL's gate: the session's permission policy decides (modes, rules, `--yolo` as
 * bypassPermissions); earlier "for this session" answers pass, and what the policy asks about is
 * asked through the broker. The policy is built when the session opens, hence `configure`.
 */
export class ReplGate implements ExplainingGate {
  private inner?: SessionGate;

  constructor(
    private readonly broker: PermissionBroker,
    private readonly yolo: boolean,
  ) {}

  private fromSession = false;

  /** True once a session's policy was installed (`configure`). */
  get configured(): boolean {
    return this.fromSession;
  }

  configure(policy: Policy): void {
    this.inner = createSessionGate((request) => this.broker.ask(request), policy);
    this.fromSession = true;
  }

  private live(): SessionGate {
    if (!this.inner) this.inner = createSessionGate((request) => this.broker.ask(request), { yolo: this.yolo });
    return this.inner;
  }

  get additionalDirs(): readonly string[] {
    return this.live().additionalDirs ?? [];
  }

  get policy(): Policy {
    return this.live().policy;
  }

  async check(request: PermissionRequest) {
    return this.live().check(request);
  }

  denialMessage(request: PermissionRequest): string {
    return this.live().denialMessage!(request);
  }
}
