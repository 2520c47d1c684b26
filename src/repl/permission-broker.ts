/**
 * Bridges the tool loop's permission questions to the screen: `ask` shows the prompt and resolves
 * with the user's answer. One question at a time (the session gate already serialises them).
 */
import { createSessionGate, type ExplainingGate, type SessionAnswer, type SessionGate } from '../tools/permissions.js';
import type { PermissionRequest } from '../tools/types.js';
import type { UiStore } from './state/ui-store.js';

export class PermissionBroker {
  private pending?: { resolve: (answer: SessionAnswer) => void };

  constructor(private readonly store: UiStore) {}

  get asking(): boolean {
    return this.pending !== undefined;
  }

  ask(request: PermissionRequest): Promise<SessionAnswer> {
    this.answer('deny');
    return new Promise<SessionAnswer>((resolve) => {
      this.pending = { resolve };
      if (request.detail && (request.tool === 'edit_file' || request.tool === 'write_file')) {
        this.store.dispatch({ type: 'tool-diff', diff: request.detail });
      }
      this.store.dispatch({ type: 'permission-open', request });
    });
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
 * The REPL's gate: everything allowed with `--yolo`; otherwise `permissions.allow` rules and
 * earlier "for this session" answers pass, and the rest is asked through the broker. The rules
 * are read when the session is open (they live in its config), hence `configure`.
 */
export class ReplGate implements ExplainingGate {
  private inner?: SessionGate;

  constructor(
    private readonly broker: PermissionBroker,
    private readonly yolo: boolean,
  ) {}

  get configured(): boolean {
    return this.inner !== undefined;
  }

  configure(allow: string[]): void {
    this.inner = createSessionGate((request) => this.broker.ask(request), { allow });
  }

  async check(request: PermissionRequest) {
    if (this.yolo) return 'allow' as const;
    if (!this.inner) this.configure([]);
    return this.inner!.check(request);
  }

  denialMessage(request: PermissionRequest): string {
    if (!this.inner) this.configure([]);
    return this.inner!.denialMessage!(request);
  }
}
