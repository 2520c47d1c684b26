/**
 * What the screen shows when a session becomes current (the REPL's start, /resume, /clear, a
 * model switch): its replayed transcript and the footer's session line.
 */
import type { LiveSession } from '../agent/open-session.js';
import { openingItems } from './replay.js';
import type { TranscriptScrollback } from './scrollback.js';
import type { NewItem } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';

export interface SessionViewTarget {
  store: UiStore;
  cwd: string;
  version: string;
  /** Clears the terminal before a replaced transcript is drawn. */
  clearScreen?: () => void;
  /** Writes a long replay's older items as plain scrollback (scrollback.ts). */
  scrollback?: TranscriptScrollback;
}

/**
 * `reset` replaces the transcript with the session's replay (after the banner), `append` adds
 * it, `keep` adds only what a model switch says. A long replay is written as plain scrollback,
 * not through `<Static>`.
 */
export function showSession(target: SessionViewTarget, session: LiveSession, how: 'reset' | 'append' | 'keep', footer: { contextTokens: number; permissionMode: string }): void {
  const items = openingItems(session, how === 'keep');
  if (how === 'reset') {
    target.clearScreen?.();
    const all: NewItem[] = [{ kind: 'banner', version: target.version, cwd: target.cwd }, ...items];
    const taken = target.scrollback?.take(all) ?? false;
    target.store.dispatch({ type: 'reset', items: all, scrollback: taken ? all.length : 0 });
  } else if (items.length) {
    const taken = target.scrollback?.take(items) ?? false;
    target.store.dispatch({ type: 'append', items, scrollback: taken ? items.length : 0 });
  }
  target.store.dispatch({
    type: 'session',
    info: {
      sessionId: session.sessionId,
      provider: session.provider,
      model: session.model,
      inputBudget: session.budget.inputBudget,
      window: session.budget.window,
      contextTokens: footer.contextTokens,
      mode: session.mode.get(),
      permissionMode: footer.permissionMode,
    },
  });
}
