import type { LiveSession, SessionFlags } from '../agent/open-session.js';
import type { ControllerEvent } from '../agent/session-controller.js';
import type { ToolResultImage } from '../core/message.js';
import type { ExplainingGate, Policy } from '../tools/permissions/index.js';
import type { NewItem, NoticeTone } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';
import type { SpendByModel } from './usage-report.js';

/**
 * What slash commands may use of the REPL runtime: a narrow context, not the runtime itself (the
 * runtime implements it; command files import only this type, so no import cycle forms).
 */
export interface CommandHost {
  readonly cwd: string;
  readonly store: UiStore;
  readonly permissionPolicy: Policy;
  /** The gate the model's tool calls go through (a `!command` uses it too). */
  readonly permissionGate: ExplainingGate & { readonly policy: Policy };
  requireSession(): LiveSession;
  append(...items: NewItem[]): void;
  notice(text: string, tone?: NoticeTone): void;
  showMode(mode: string): void;
  /** Flags every reopened session keeps (profile, yolo, max turns, system prompt flags…). */
  baseFlags(): SessionFlags;
  /** Close the session and open another (`reset` clears the screen); false when it failed. */
  switchSession(flags: SessionFlags, how: 'reset' | 'keep', status: string): Promise<boolean>;
  compact(focus: string): Promise<void>;
  /** A turn sending `prompt` with `images` attached (the user's command line is already on screen). */
  chatAs(prompt: string, images?: readonly ToolResultImage[]): Promise<void>;
  /** A turn that shows `start`'s events (cards, errors); Esc and Ctrl+C abort its signal. */
  streamTurn(start: (signal: AbortSignal) => AsyncIterable<ControllerEvent>): Promise<void>;
  spendSoFar(): SpendByModel;
  exit(code?: number): Promise<void>;
}
