/**
 * Which session the REPL holds, and replacing it: the first open, then /clear, /resume, /rewind
 * and a model switch. The runtime (runtime.ts) drives turns and input on whatever session this
 * holds; it never opens or closes one itself.
 *
 * Contract:
 * - `current` is undefined until `openFirst` resolves; from then on there is always a current
 *   session, even after a failed switch.
 * - `switchTo` closes the current session before it opens the next, so one session at a time
 *   holds its files, MCP servers and hooks. When the next fails to open, the error is shown as a
 *   notice, the previous session is reopened (by id when it was persisted, with its provider and
 *   model, on the transcript as it is) and `switchTo` resolves false.
 * - The permission gate: a `reset` switch (new or resumed session) gets a fresh gate, with no
 *   earlier "allow for this session" answers; `keep` (a model switch) keeps the gate and its
 *   answers. A gate takes its policy from the first session installed with it.
 * - Spend: a session's usage is folded into a total per model before it closes, so
 *   `spendSoFar` covers every session of this REPL, compaction included.
 * - runtime-parts.ts loads with the first open, in parallel with the session's own modules;
 *   `parts` and `gate` throw until then.
 */
import { keptFlags } from '../agent/flags.js';
import type { LiveSession, OpenSessionOptions, SessionFlags } from '../agent/open-session.js';
import { errorText } from '../errors.js';
import type { PermissionBroker } from './permission-broker.js';
import type { ReplGate } from './repl-gate.js';
import type { SessionViewTarget } from './session-view.js';
import type { NoticeTone } from './state/ui-state.js';
import { addSpend, type SpendByModel } from './usage-report.js';

export type SessionOpener = (opts: OpenSessionOptions) => Promise<LiveSession>;
export type RuntimeParts = typeof import('./runtime-parts.js');

/** What opening and showing a session needs of the REPL's options. */
export interface SessionSwitchOptions extends SessionViewTarget {
  env: NodeJS.ProcessEnv;
  /** Flags of the first session (`--resume`, `--continue`, `--model` …). */
  flags: SessionFlags;
  /** Opens sessions; default: `openSession` (imported when first needed). */
  open?: SessionOpener;
}

/** What the switcher tells the runtime. */
export interface SessionSwitchEvents {
  notice(text: string, tone: NoticeTone): void;
  /** A session became current (its replay is on screen). */
  installed(): void;
}

export class SessionSwitcher {
  private session?: LiveSession;
  private currentGate?: ReplGate;
  private loaded?: RuntimeParts;
  private partsLoad?: Promise<RuntimeParts>;
  private readonly spend: SpendByModel = new Map();

  constructor(
    private readonly opts: SessionSwitchOptions,
    private readonly broker: PermissionBroker,
    private readonly events: SessionSwitchEvents,
  ) {}

  get current(): LiveSession | undefined {
    return this.session;
  }

  /** runtime-parts.ts; throws before the first session is open. */
  get parts(): RuntimeParts {
    if (!this.loaded) throw new Error('no session is open');
    return this.loaded;
  }

  /** The gate the current session's tool calls go through; throws before the first session. */
  get gate(): ReplGate {
    if (!this.currentGate) throw new Error('no session is open');
    return this.currentGate;
  }

  /** Open the session of the REPL's flags and add its replay to the transcript. */
  async openFirst(): Promise<void> {
    this.install(await this.openWith(this.opts.flags), 'append');
  }

  /**
   * Close the current session and open another (`flags`). On failure the previous session is
   * reopened and the error is shown; the transcript is `reset` (new/resumed) or `keep` (model).
   */
  async switchTo(flags: SessionFlags, how: 'reset' | 'keep'): Promise<boolean> {
    const old = this.require();
    addSpend(this.spend, old.model, old.controller.spent);
    await old.close();
    const gate = how === 'reset' ? this.freshGate(this.parts) : this.gate;
    let next: LiveSession;
    try {
      next = await this.openWith(flags, gate);
    } catch (err) {
      this.events.notice(errorText(err), 'error');
      const back = await this.openWith({ ...this.baseFlags(), session: old.store.persisted ? old.sessionId : undefined, provider: old.provider, model: old.model });
      this.install(back, 'keep');
      return false;
    }
    this.currentGate = gate;
    this.install(next, how);
    return true;
  }

  /** Flags every reopened session keeps (profile, yolo, max turns, system prompt flags). */
  baseFlags(): SessionFlags {
    return { ...keptFlags(this.opts.flags), mode: this.session?.mode.get() ?? this.opts.flags.mode };
  }

  /** Spend so far, per model, of every session of this REPL, compaction included. */
  spendSoFar(): SpendByModel {
    const out: SpendByModel = new Map(this.spend);
    if (this.session) addSpend(out, this.session.model, this.session.controller.spent);
    return out;
  }

  /** The trigger's measure of the current context (src/agent/context-measure.ts). */
  contextTokens(): number {
    return this.session?.controller.context.measure().tokens ?? 0;
  }

  private require(): LiveSession {
    if (!this.session) throw new Error('no session is open');
    return this.session;
  }

  private freshGate(parts: RuntimeParts): ReplGate {
    return new parts.ReplGate(this.broker, !!this.opts.flags.yolo);
  }

  private async openWith(flags: SessionFlags, gate?: ReplGate): Promise<LiveSession> {
    const [open, parts] = await Promise.all([this.opts.open ?? import('../agent/open-session.js').then((m) => m.openSession), this.loadParts()]);
    this.currentGate ??= this.freshGate(parts);
    const store = this.opts.store;
    return open({
      cwd: this.opts.cwd,
      env: this.opts.env,
      flags,
      interactive: true,
      permissions: gate ?? this.currentGate,
      onSubagentProgress: (id, child) => store.dispatch({ type: 'tool-progress', id, child: { agent: child.agent, turns: child.turns, tool: child.tool } }),
      onToolOutput: (id, tail) => store.dispatch({ type: 'tool-output', id, tail }),
      onWarning: (line) => this.events.notice(line, 'warning'),
    });
  }

  /** Make `session` current; `reset` replaces the transcript with its replay, `append` adds it. */
  private install(session: LiveSession, how: 'reset' | 'append' | 'keep'): void {
    this.session = session;
    const gate = this.gate;
    // A model switch keeps "allow for this session" answers; a new or resumed session starts fresh.
    if (!gate.configured) gate.configure(session.policy);
    this.parts.showSession(this.opts, session, how, { contextTokens: this.contextTokens(), permissionMode: gate.policy.mode });
    this.events.installed();
  }

  /** runtime-parts.ts, loading (once) with the first session. */
  private loadParts(): Promise<RuntimeParts> {
    this.partsLoad ??= import('./runtime-parts.js').then(
      ({ dispatchInput, projectSlashCommands, ReplGate, runTurn, showSession, TEXT_BATCH_MS }) =>
        (this.loaded = { dispatchInput, projectSlashCommands, ReplGate, runTurn, showSession, TEXT_BATCH_MS }),
    );
    return this.partsLoad;
  }
}
