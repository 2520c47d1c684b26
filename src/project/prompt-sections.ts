/**
 * The system prompt as keyed sections, and what a turn sends when some of them changed since the
 * prompt was written. A session keeps its system prompt byte-identical (the provider's prompt
 * cache then reads the whole conversation); what changes later — git status, the date, the mode,
 * an instruction or memory file — reaches the model as a reminder ahead of the user's text.
 * Pure functions.
 */
import type { PromptReminder, PromptSection } from '../transcript/records.js';

export type { PromptReminder, PromptSection };

/**
 * Sections that only a new session (or a resume with other flags or another folder) changes:
 * when one differs, the session gets a new system prompt instead of a reminder.
 */
const FIXED_KEYS = new Set(['base', 'env', 'append']);

/** The prompt text of the sections, in order. */
export function renderSections(sections: readonly PromptSection[]): string {
  let out = '';
  for (const s of sections) out += out === '' ? s.text : `${s.line ? '\n' : '\n\n'}${s.text}`;
  return out;
}

/** What the model knows of the prompt's sections: the system prompt, overlaid by the reminders sent since. */
export interface PromptState {
  /** The system prompt every request sends. */
  snapshot: PromptSection[];
  /** The sections as the model last saw them (key → text). */
  known: PromptSection[];
}

/** `known` with the reminder's sections applied (an empty text removes a section). */
export function applySections(known: readonly PromptSection[], changes: readonly PromptSection[]): PromptSection[] {
  const out = new Map(known.map((s) => [s.key, s]));
  for (const c of changes) {
    if (c.text === '') out.delete(c.key);
    else out.set(c.key, c);
  }
  return [...out.values()];
}

/** The sections of `fresh` that differ from `known`, and those `known` has that `fresh` lacks (empty text). */
export function changedSections(known: readonly PromptSection[], fresh: readonly PromptSection[]): PromptSection[] {
  const before = new Map(known.map((s) => [s.key, s.text]));
  const now = new Set(fresh.map((s) => s.key));
  const changed = fresh.filter((s) => before.get(s.key) !== s.text);
  for (const s of known) if (!now.has(s.key)) changed.push({ key: s.key, text: '' });
  return changed;
}

/** What a turn sends: the (possibly new) state, a new system prompt, or a reminder. */
export interface PromptStep {
  state: PromptState;
  /** Set when this turn starts a new system prompt. */
  system?: PromptSection[];
  reminder?: PromptReminder;
}

/**
 * The next turn's prompt: the first turn (no state) or a change in a fixed section writes a new
 * system prompt; otherwise the prompt stays and the sections that changed since the model last
 * saw them go into a reminder (none when nothing changed). `removed(key, old)` words a section
 * that is gone.
 */
export function nextPrompt(state: PromptState | undefined, fresh: readonly PromptSection[], removed: (key: string, old: string) => string): PromptStep {
  if (!state || changedSections(state.snapshot, fresh).some((s) => FIXED_KEYS.has(s.key))) {
    const snapshot = fresh.map((s) => ({ ...s }));
    return { state: { snapshot, known: snapshot }, system: snapshot };
  }
  const changes = changedSections(state.known, fresh);
  if (changes.length === 0) return { state };
  const old = new Map(state.known.map((s) => [s.key, s.text]));
  const lines = changes.map((c) => (c.text === '' ? removed(c.key, old.get(c.key) ?? '') : c.text));
  const text = `<system-reminder>\nThis changed since the system prompt was written and replaces what it says there:\n\n${lines.join('\n\n')}\n</system-reminder>\n\n`;
  return { state: { snapshot: state.snapshot, known: applySections(state.known, changes) }, reminder: { text, sections: changes } };
}
