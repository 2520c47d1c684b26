/**
 * The REPL's behaviour outside React: running turns, the input queue, slash commands, permission
 * answers and exit. Components only render the {@link UiStore}; the key router calls the methods
 * here. Which session is open, and replacing it, is session-switch.ts.
 *
 * Invariants:
 * - At most one turn or command runs at a time (`running`); input submitted meanwhile is queued
 *   (at most QUEUE_LIMIT) and runs in order when the running one ends, however it ended.
 * - The REPL writes no session records itself: SessionController persists turns, checkpoints and
 *   compactions; `openSession` records a model switch.
 * - What runs only once a session is open (the permission gate, input dispatch, turns, replay:
 *   runtime-parts.ts) loads with the first session, never before the prompt takes keys; nothing
 *   uses it before `ready`.
 */
import type { ControllerEvent } from '../agent/session-controller.js';
import type { LiveSession, SessionFlags } from '../agent/open-session.js';
import { errorText } from '../errors.js';
import { promptTokens, type Usage } from '../core/usage.js';
import type { ToolResultImage } from '../core/message.js';
import type { Policy, SessionAnswer } from '../tools/permissions/index.js';
import type { CommandHost } from './command-host.js';
import type { InputHistory } from './input/history-store.js';
import { type InputOrigin, MessageQueue } from './message-queue.js';
import { PermissionBroker } from './permission-broker.js';
import type { ReplGate } from './repl-gate.js';
import { SessionSwitcher, type SessionSwitchOptions } from './session-switch.js';
import { setProjectCommands } from './slash-commands.js';
import { QUEUE_LIMIT, type NewItem } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';
import type { TurnHandle } from './turn-runner.js';
import type { SpendByModel } from './usage-report.js';

/** The REPL's options; `open`, `clearScreen` and `scrollback` are for session-switch.ts. */
export interface RuntimeOptions extends SessionSwitchOptions {
  history?: InputHistory;
  /** Called once when the REPL should end (after the session is closed). */
  onExit: (code: number) => void;
  /** Text delta batching interval (tests pass 0). */
  batchMs?: number;
  /** The permission prompt's typed-ahead guard (input/prompt-guard.ts; tests not about timing pass 0). */
  promptGuardMs?: number;
}

/** The line a REPL started in bypassPermissions shows first (not only the footer's mode word). */
export const YOLO_WARNING = '--yolo: every tool call runs without asking (deny rules and protected paths still hold)';

/** How long the second Ctrl+C may come after the first. */
export const EXIT_WINDOW_MS = 2000;

export class ReplRuntime implements CommandHost {
  readonly store: UiStore;
  readonly broker: PermissionBroker;
  private readonly sessions: SessionSwitcher;
  private turn?: TurnHandle;
  private running = false;
  private exiting = false;
  private ready = false;
  private exitTimer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private readonly queue: MessageQueue;

  constructor(readonly opts: RuntimeOptions) {
    this.store = opts.store;
    this.queue = new MessageQueue(opts.store);
    this.broker = new PermissionBroker(this.store, () => opts.scrollback?.size?.(), opts.promptGuardMs);
    this.sessions = new SessionSwitcher(opts, this.broker, {
      notice: (text, tone) => this.notice(text, tone),
      installed: () => this.refreshProjectCommands(),
    });
    this.broker.onOpen = (request) => this.session?.notify(`Keen needs your permission to use ${request.tool}`, 'permission_prompt');
  }

  get busy(): boolean {
    return this.running || !this.ready;
  }

  get cwd(): string {
    return this.opts.cwd;
  }

  /** Open the first session, replay it, load history, then send the initial prompt (if any). */
  async start(initialPrompt?: string): Promise<void> {
    const historyLoad = this.opts.history?.load().then((entries) => this.store.dispatch({ type: 'edit', command: { type: 'history-loaded', entries } }));
    try {
      await this.sessions.openFirst();
    } catch (err) {
      await historyLoad?.catch(() => undefined);
      throw err;
    }
    this.ready = true;
    if (this.bypassChosen) this.notice(YOLO_WARNING, 'warning');
    await historyLoad?.catch(() => undefined);
    if (initialPrompt?.trim()) this.submit(initialPrompt, { remember: false });
    else this.drain();
  }

  // ---- input ---------------------------------------------------------------------------------

  /** The user pressed Enter on `text`: run it now, or queue it while busy (`origin`: message-queue.ts). */
  submit(text: string, opts: InputOrigin & { remember?: boolean } = {}): void {
    if (!text.trim() || this.exiting) return;
    if (opts.remember !== false) {
      this.store.dispatch({ type: 'edit', command: { type: 'remember', text } });
      void this.opts.history?.append(text);
    }
    if (this.busy || this.queue.length > 0) {
      if (!this.queue.push(text, opts)) {
        this.notice(`The queue is full (${QUEUE_LIMIT}); wait for the agent to finish, or press Ctrl+C to interrupt it.`, 'warning');
        this.store.dispatch({ type: 'edit', command: { type: 'set', text } });
        return;
      }
      this.drain();
      return;
    }
    this.launch(text, opts);
  }

  private launch(text: string, origin: InputOrigin = {}): void {
    this.running = true;
    this.current = this.sessions.parts
      .dispatchInput(this, text, origin)
      .catch((err) => this.store.dispatch({ type: 'append', items: [{ kind: 'error', title: 'Error', message: errorText(err) }] }))
      .finally(() => {
        this.running = false;
        this.current = undefined;
        this.refreshProjectCommands();
        this.drain();
      });
  }

  /** Run the next queued input when nothing is running. */
  private drain(): void {
    if (this.busy || this.exiting) return;
    const next = this.queue.shift();
    if (next) this.launch(next.text, next.origin);
  }

  /** A turn sending `prompt` after the command line the user typed (/init). */
  async chatAs(prompt: string, images?: readonly ToolResultImage[]): Promise<void> {
    const session = this.requireSession();
    await this.streamTurn((signal) => session.controller.chat(prompt, signal, images));
  }

  /** Manual compaction (`/compact [focus]`). */
  async compact(focus: string): Promise<void> {
    const session = this.requireSession();
    if (session.controller.appState.messages.length === 0) {
      this.notice('Nothing to compact yet.', 'muted');
      return;
    }
    await this.streamTurn((signal) => session.controller.compact(focus || undefined, signal), 'compact');
  }

  async streamTurn(start: (signal: AbortSignal) => AsyncIterable<ControllerEvent>, mode: TurnHandle['mode'] = 'chat'): Promise<void> {
    const handle: TurnHandle = { mode, abort: new AbortController() };
    this.turn = handle;
    try {
      const { runTurn, TEXT_BATCH_MS } = this.sessions.parts;
      await runTurn(
        this.store,
        handle,
        start(handle.abort.signal),
        {
          onUsage: (u) => this.onUsage(u),
          onHistoryReplaced: () => this.store.dispatch({ type: 'context', tokens: this.estimateContext() }),
          measure: () => this.estimateContext(),
        },
        this.opts.batchMs ?? TEXT_BATCH_MS,
      );
    } finally {
      this.turn = undefined;
      this.broker.answer('deny');
      this.store.dispatch({ type: 'context', tokens: this.estimateContext() });
    }
  }

  // ---- keys ----------------------------------------------------------------------------------

  /**
   * Ctrl+C: answers an open permission question with deny and cancels the running parent stream
   * (chat or manual compaction), the queued messages going back to the input for editing; when
   * idle it clears the input, then asks for a second press to exit.
   */
  interrupt(): void {
    const state = this.store.getState();
    if (this.turn) {
      this.cancelTurn(this.turn);
      return;
    }
    if (state.picker) {
      this.store.dispatch({ type: 'picker-close' });
      return;
    }
    if (state.editor.text) {
      this.store.dispatch({ type: 'edit', command: { type: 'clear' } });
      return;
    }
    if (this.running) return;
    if (state.exitArmed) {
      void this.exit(0);
      return;
    }
    this.store.dispatch({ type: 'exit-armed', armed: true });
    clearTimeout(this.exitTimer);
    this.exitTimer = setTimeout(() => this.store.dispatch({ type: 'exit-armed', armed: false }), EXIT_WINDOW_MS);
    this.exitTimer.unref?.();
  }

  /** Cancel `turn` (the user stopped it); its queued messages go back to the input, none is sent. */
  private cancelTurn(turn: TurnHandle): void {
    this.broker.answer('deny');
    turn.abort.abort();
    this.queue.recall();
  }

  /**
   * Esc: says no to an open permission question (which stops the turn), closes a picker, cancels
   * a manual compaction, during an automatic compaction calls only the child's cancel (the parent
   * turn goes on), and otherwise interrupts a streaming answer or a running tool as Ctrl+C does.
   */
  escape(): void {
    const state = this.store.getState();
    if (this.broker.asking) {
      this.answerPermission('deny');
      return;
    }
    if (state.picker) {
      this.store.dispatch({ type: 'picker-close' });
      return;
    }
    if (this.turn?.mode === 'compact') {
      this.turn.abort.abort();
      return;
    }
    if (this.turn?.childCancel) {
      const cancel = this.turn.childCancel;
      this.turn.childCancel = undefined;
      cancel();
      return;
    }
    if (state.candidates.length) this.store.dispatch({ type: 'candidates', candidates: [] });
    else if (this.turn) this.cancelTurn(this.turn);
  }

  /**
   * The user's answer to the open permission question. A no ("tell the agent what to do
   * instead") stops the turn: the tool result records the denial, no further model request is
   * made, and the input (with any queued messages) waits for the user's instruction.
   */
  answerPermission(answer: SessionAnswer): void {
    const turn = this.turn;
    if (answer === 'deny' && this.broker.asking && turn?.mode === 'chat') {
      // The turn stops once the denied call's result is in (turn-runner.ts), so the denial is recorded.
      turn.stopped = 'denied';
      this.broker.answer('deny');
      this.queue.recall();
      return;
    }
    this.broker.answer(answer);
  }

  /** A picker row was chosen. */
  choose(kind: 'resume' | 'model' | 'rewind', value: string): void {
    this.store.dispatch({ type: 'picker-close' });
    const text = kind === 'resume' ? `/resume ${value}` : kind === 'rewind' ? `/rewind ${value}` : `/model ${value}`;
    if (this.busy) this.store.dispatch({ type: 'queue-push', text });
    else this.launch(text);
  }

  /** The user started keen in bypassPermissions (`--yolo`, `--permission-mode bypassPermissions`): Shift+Tab may return to it. */
  get bypassChosen(): boolean {
    return !!this.opts.flags.yolo || this.opts.flags.permissionMode === 'bypassPermissions';
  }

  /** The live permission policy (its mode and session rules change from the REPL). */
  get permissionPolicy(): Policy {
    return this.sessions.gate.policy;
  }

  get permissionGate(): ReplGate {
    return this.sessions.gate;
  }

  /** Show `mode` in the footer. */
  showMode(mode: string): void {
    const info = this.store.getState().session;
    if (info) this.store.dispatch({ type: 'session', info: { ...info, permissionMode: mode } });
  }

  toggleExpand(): void {
    this.store.dispatch({ type: 'toggle-expand' });
    const state = this.store.getState();
    this.notice(state.expandTools ? 'Tool output expanded (Ctrl+O to collapse)' : 'Tool output collapsed (Ctrl+O to expand)', 'muted');
    if (!state.expandTools || this.running) return;
    const last = [...state.items].reverse().find((i) => i.kind === 'tool');
    if (last?.kind === 'tool' && !last.expanded && (last.card.output || last.card.diff)) {
      this.append({ kind: 'tool', card: last.card, expanded: true });
    }
  }

  // ---- sessions (session-switch.ts) ---------------------------------------------------------

  get session(): LiveSession | undefined {
    return this.sessions.current;
  }

  /**
   * Close the current session and open another (`flags`). On failure the previous session is
   * reopened and the error is shown; the transcript is `reset` (new/resumed) or `keep` (model).
   */
  async switchSession(flags: SessionFlags, how: 'reset' | 'keep', status: string): Promise<boolean> {
    this.store.dispatch({ type: 'command-busy', status });
    try {
      return await this.sessions.switchTo(flags, how);
    } finally {
      this.store.dispatch({ type: 'command-busy', status: undefined });
    }
  }

  /** Flags every reopened session keeps (profile, yolo, max turns, system prompt flags). */
  baseFlags(): SessionFlags {
    return this.sessions.baseFlags();
  }

  requireSession(): LiveSession {
    if (!this.session) throw new Error('no session is open');
    return this.session;
  }

  /** Spend so far, per model, compaction included. */
  spendSoFar(): SpendByModel {
    return this.sessions.spendSoFar();
  }

  /** Custom commands and skills for /help and Tab, re-read after every turn (files may have changed). */
  private refreshProjectCommands(): void {
    if (!this.session) return;
    try {
      setProjectCommands(this.sessions.parts.projectSlashCommands(this));
    } catch {
      // a directory vanished mid-read: keep the previous list
    }
  }

  // ---- context gauge -------------------------------------------------------------------------

  /** The trigger's measure of the context (src/agent/context-measure.ts). */
  estimateContext(): number {
    return this.sessions.contextTokens();
  }

  private onUsage(u: Usage): void {
    if (promptTokens(u) > 0) this.store.dispatch({ type: 'context', tokens: this.estimateContext() });
  }

  // ---- output helpers ------------------------------------------------------------------------

  append(...items: NewItem[]): void {
    this.store.dispatch({ type: 'append', items });
  }

  notice(text: string, tone: 'info' | 'success' | 'warning' | 'error' | 'muted' = 'info'): void {
    this.append({ kind: 'notice', text, tone });
  }

  // ---- exit ----------------------------------------------------------------------------------

  /** Cancel what runs, wait for its records to be written, close the session, then `onExit`. */
  async exit(code = 0): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    clearTimeout(this.exitTimer);
    this.broker.answer('deny');
    this.turn?.abort.abort();
    if (this.current) await Promise.race([this.current, new Promise((r) => setTimeout(r, 3000).unref?.())]);
    await this.session?.close().catch(() => undefined);
    this.opts.onExit(code);
  }

  get exited(): boolean {
    return this.exiting;
  }
}
