/**
 * The prompt editor as a pure state machine: multi-line text with a cursor, and ↑/↓ history
 * browsing that keeps the unfinished draft. The key router turns key presses into
 * {@link EditorCommand}s; nothing here knows about terminals.
 */

export interface EditorState {
  text: string;
  /** Index into `text` (0 … text.length). */
  cursor: number;
  /** Earlier inputs, oldest first. */
  history: readonly string[];
  /** Index into `history` while browsing it, or -1. */
  browsing: number;
  /** The text being written when browsing started (restored by ↓ past the newest entry). */
  draft: string;
  /** The selected row of the `/` menu (slash commands matching the input); absent: the first. Any edit resets it. */
  menu?: number;
  /** Long pastes shown in `text` as their {@link pasteLabel}, in the order pasted (sent whole: {@link expandPastes}). */
  pastes?: readonly { id: number; text: string }[];
}

export type EditorCommand =
  | { type: 'insert'; text: string }
  /** A whole bracketed paste: inserted as text, or — longer than {@link PASTE_COLLAPSE_LINES} lines — as its label. */
  | { type: 'paste'; text: string }
  | { type: 'newline' }
  | { type: 'backspace' }
  | { type: 'delete' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'word-left' }
  | { type: 'word-right' }
  | { type: 'line-start' }
  | { type: 'line-end' }
  | { type: 'up' }
  | { type: 'down' }
  | { type: 'kill-line-start' }
  | { type: 'kill-line-end' }
  | { type: 'delete-word' }
  | { type: 'set'; text: string; cursor?: number }
  | { type: 'clear' }
  | { type: 'history-loaded'; entries: readonly string[] }
  /** Move the `/` menu's selection by `delta` among `rows` rows (wrapping). */
  | { type: 'menu-move'; delta: number; rows: number }
  | { type: 'remember'; text: string };

/** A paste of more lines than this shows as one label in the input and the transcript. */
export const PASTE_COLLAPSE_LINES = 10;

/** What the input and the transcript show of long paste `id`: `[Pasted text #1 +289 lines]`. */
export function pasteLabel(id: number, text: string): string {
  return `[Pasted text #${id} +${text.split('\n').length} lines]`;
}

/**
 * The text to send (each label still in the input replaced by its paste, whole) and, when a label
 * was replaced, what to show for it (the input as it reads, labels and all).
 */
export function expandPastes(s: Pick<EditorState, 'text' | 'pastes'>): { text: string; shown?: string } {
  let text = s.text;
  let replaced = false;
  for (const paste of s.pastes ?? []) {
    const label = pasteLabel(paste.id, paste.text);
    const at = text.indexOf(label);
    if (at < 0) continue;
    text = text.slice(0, at) + paste.text + text.slice(at + label.length);
    replaced = true;
  }
  return replaced ? { text, shown: s.text } : { text };
}

/** Entries kept in memory (and on disk) per project. */
export const HISTORY_LIMIT = 500;

export function emptyEditor(history: readonly string[] = []): EditorState {
  return { text: '', cursor: 0, history, browsing: -1, draft: '' };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl;
}

function edit(s: EditorState, text: string, cursor: number): EditorState {
  return { ...s, text, cursor, browsing: -1, menu: undefined };
}

function recall(s: EditorState, index: number): EditorState {
  if (index < 0 || index >= s.history.length) return s;
  const text = s.history[index];
  return { ...s, text, cursor: text.length, browsing: index, draft: s.browsing === -1 ? s.text : s.draft, menu: undefined };
}

/** Normalise pasted or typed text: CR/CRLF become LF; tabs become two spaces. */
export function normaliseInput(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ');
}

export function editorReducer(s: EditorState, cmd: EditorCommand): EditorState {
  const { text, cursor } = s;
  switch (cmd.type) {
    case 'insert': {
      const add = normaliseInput(cmd.text);
      if (!add) return s;
      return edit(s, text.slice(0, cursor) + add + text.slice(cursor), cursor + add.length);
    }
    case 'paste': {
      const add = normaliseInput(cmd.text);
      if (add.split('\n').length <= PASTE_COLLAPSE_LINES) return editorReducer(s, { type: 'insert', text: add });
      const id = (s.pastes?.at(-1)?.id ?? 0) + 1;
      const label = pasteLabel(id, add);
      return { ...edit(s, text.slice(0, cursor) + label + text.slice(cursor), cursor + label.length), pastes: [...(s.pastes ?? []), { id, text: add }] };
    }
    case 'newline':
      return edit(s, `${text.slice(0, cursor)}\n${text.slice(cursor)}`, cursor + 1);
    case 'backspace':
      if (cursor === 0) return s;
      return edit(s, text.slice(0, cursor - 1) + text.slice(cursor), cursor - 1);
    case 'delete':
      if (cursor >= text.length) return s;
      return edit(s, text.slice(0, cursor) + text.slice(cursor + 1), cursor);
    case 'left':
      return { ...s, cursor: Math.max(0, cursor - 1) };
    case 'right':
      return { ...s, cursor: Math.min(text.length, cursor + 1) };
    case 'word-left': {
      let i = cursor;
      while (i > 0 && /\s/.test(text[i - 1])) i--;
      while (i > 0 && !/\s/.test(text[i - 1])) i--;
      return { ...s, cursor: i };
    }
    case 'word-right': {
      let i = cursor;
      while (i < text.length && /\s/.test(text[i])) i++;
      while (i < text.length && !/\s/.test(text[i])) i++;
      return { ...s, cursor: i };
    }
    case 'line-start':
      return { ...s, cursor: lineStart(text, cursor) };
    case 'line-end':
      return { ...s, cursor: lineEnd(text, cursor) };
    case 'up': {
      const start = lineStart(text, cursor);
      if (start === 0) return recall(s, s.browsing === -1 ? s.history.length - 1 : s.browsing - 1);
      const prevStart = lineStart(text, start - 1);
      const column = cursor - start;
      return { ...s, cursor: Math.min(prevStart + column, start - 1) };
    }
    case 'down': {
      const end = lineEnd(text, cursor);
      if (end === text.length) {
        if (s.browsing === -1) return s;
        if (s.browsing === s.history.length - 1) return { ...s, text: s.draft, cursor: s.draft.length, browsing: -1, draft: '', menu: undefined };
        return recall(s, s.browsing + 1);
      }
      const column = cursor - lineStart(text, cursor);
      const nextEnd = lineEnd(text, end + 1);
      return { ...s, cursor: Math.min(end + 1 + column, nextEnd) };
    }
    case 'kill-line-start': {
      const start = lineStart(text, cursor);
      const from = start === cursor && cursor > 0 ? cursor - 1 : start;
      return edit(s, text.slice(0, from) + text.slice(cursor), from);
    }
    case 'kill-line-end': {
      const end = lineEnd(text, cursor);
      const to = end === cursor && cursor < text.length ? cursor + 1 : end;
      return edit(s, text.slice(0, cursor) + text.slice(to), cursor);
    }
    case 'delete-word': {
      let i = cursor;
      while (i > 0 && /\s/.test(text[i - 1])) i--;
      while (i > 0 && !/\s/.test(text[i - 1])) i--;
      return edit(s, text.slice(0, i) + text.slice(cursor), i);
    }
    case 'set':
      return edit(s, cmd.text, Math.max(0, Math.min(cmd.cursor ?? cmd.text.length, cmd.text.length)));
    case 'clear':
      return { ...s, text: '', cursor: 0, browsing: -1, draft: '', menu: undefined, pastes: undefined };
    case 'menu-move': {
      if (cmd.rows <= 0) return s;
      const menu = ((((s.menu ?? 0) + cmd.delta) % cmd.rows) + cmd.rows) % cmd.rows;
      return { ...s, menu };
    }
    case 'history-loaded':
      // Entries typed before the file finished loading stay newest.
      return { ...s, history: [...cmd.entries, ...s.history].slice(-HISTORY_LIMIT) };
    case 'remember': {
      const entry = cmd.text;
      if (!entry.trim()) return s;
      const history = s.history[s.history.length - 1] === entry ? s.history : [...s.history, entry].slice(-HISTORY_LIMIT);
      return { ...s, history };
    }
  }
}
