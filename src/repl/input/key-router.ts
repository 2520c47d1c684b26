/**
 * Routes each key press to the right place: the permission prompt, the picker, the global keys
 * (Ctrl+C, Esc, Ctrl+O, Ctrl+D) and the editor. One router instead of several competing input
 * hooks, so a key means exactly one thing in each state.
 */
import type { Key } from 'ink';
import type { ReplRuntime } from '../runtime.js';
import { mcpSlashCommands } from '../mcp-commands.js';
import { selectedOption } from '../state/picker-filter.js';
import { complete, slashCandidates } from './completion.js';
import { type EditorCommand, expandPastes } from './editor.js';
import { BYPASS_HINT, replNextMode } from './mode-cycle.js';

/** Bracketed paste markers as Ink delivers them (escape stripped). */
const PASTE_START = '[200~';
const PASTE_END = '[201~';

export interface KeyRouter {
  handle(input: string, key: Key): void;
}

export function createKeyRouter(rt: ReplRuntime): KeyRouter {
  let pasting = false;
  /** The bracketed paste being received: inserted whole at its end marker (a long one collapses to a label). */
  let pasteBuffer = '';
  /** The input holds pasted text (bracketed paste): it is sent as a message, never run as a command. */
  let pasted = false;
  const edit = (command: EditorCommand) => rt.store.dispatch({ type: 'edit', command });

  const submit = () => {
    const editor = rt.store.getState().editor;
    if (!editor.text.trim()) return;
    // Long pastes go whole to the model; the transcript shows their labels.
    const { text, shown } = expandPastes(editor);
    edit({ type: 'clear' });
    rt.submit(text, { pasted, shown });
    pasted = false;
  };

  /** Shift+Tab: the next mode of the REPL's cycle (input/mode-cycle.ts). */
  const cycleMode = () => {
    if (!rt.session) return;
    void import('../permissions-command.js').then((m) => {
      const policy = rt.permissionPolicy;
      const next = replNextMode(policy.mode, rt.bypassChosen);
      m.setMode(rt, policy, next);
      if (next === 'default' && !rt.bypassChosen) rt.notice(BYPASS_HINT, 'muted');
    });
  };

  /**
   * A chunk of several characters without bracketed paste: typed fast, or pasted. One that holds
   * control bytes (Backspace, Ctrl+C, Ctrl+U…) is typing no paste carries — keys typed while the
   * REPL starts arrive as one read, and so do keys over a slow connection — so its keys act one by
   * one, each Enter sending. Escape sequences (arrows) are left to Ink's own parsing.
   */
  const chunk = (input: string) => {
    if (CONTROL_KEY.test(input) && !input.includes('\x1b')) {
      for (const [text, key] of typedKeys(input)) router.handle(text, key);
      return;
    }
    const crs = input.match(/\r\n?|\n/g)?.length ?? 0;
    if (crs === 1 && /(\r\n?|\n)$/.test(input)) {
      // "text⏎" in one read is typing (or a one-line paste): insert, then send.
      edit({ type: 'insert', text: input.replace(/(\r\n?|\n)$/, '') });
      submit();
      return;
    }
    // Several lines in one read are a paste without markers: a long one collapses as a bracketed one does.
    edit({ type: 'paste', text: input });
  };

  function permissionKey(input: string, key: Key): void {
    if (key.upArrow) rt.store.dispatch({ type: 'permission-move', delta: -1 });
    else if (key.downArrow || key.tab) rt.store.dispatch({ type: 'permission-move', delta: 1 });
    else if (key.escape) rt.answerPermission('deny');
    else if (key.return) {
      const selected = rt.store.getState().permission?.selected ?? 2;
      rt.answerPermission(selected === 0 ? 'once' : selected === 1 ? 'session' : 'deny');
    } else if (input === '1' || input === 'y') rt.answerPermission('once');
    else if (input === '2' || input === 'a') rt.answerPermission('session');
    else if (input === '3' || input === 'n') rt.answerPermission('deny');
  }

  function pickerKey(input: string, key: Key): void {
    const picker = rt.store.getState().picker!;
    if (key.upArrow) rt.store.dispatch({ type: 'picker-move', delta: -1 });
    else if (key.downArrow || key.tab) rt.store.dispatch({ type: 'picker-move', delta: 1 });
    else if (key.escape) rt.store.dispatch({ type: 'picker-close' });
    else if (key.return) {
      const option = selectedOption(picker);
      if (option) rt.choose(picker.kind, option.value);
    } else if (key.backspace || key.delete) rt.store.dispatch({ type: 'picker-filter', filter: (picker.filter ?? '').slice(0, -1) });
    // Before any filter, 1-9 choose a row; after, digits filter like any other character.
    else if (!picker.filter && /^[1-9]$/.test(input) && Number(input) <= picker.options.length) rt.choose(picker.kind, picker.options[Number(input) - 1].value);
    // Typing filters the list (state/picker-filter.ts).
    else if (input && !key.ctrl && !key.meta && !CONTROL_KEY.test(input)) rt.store.dispatch({ type: 'picker-filter', filter: (picker.filter ?? '') + input });
  }

  /** The `/` menu under the input: ↑/↓ move its selection, Tab takes it into the input, Enter runs it. True: the key was the menu's. */
  function menuKey(key: Key): boolean {
    const { editor } = rt.store.getState();
    const menu = editor.browsing === -1 ? slashCandidates(editor.text) : [];
    if (menu.length === 0) return false;
    if (key.upArrow || key.downArrow) {
      edit({ type: 'menu-move', delta: key.upArrow ? -1 : 1, rows: menu.length });
      return true;
    }
    const chosen = menu[Math.min(editor.menu ?? 0, menu.length - 1)];
    if (key.tab && !key.shift) {
      const text = `/${chosen.name}${chosen.args ? ' ' : ''}`;
      edit({ type: 'set', text });
      rt.store.dispatch({ type: 'candidates', candidates: [] });
      return true;
    }
    // A bare `/` with the selection untouched is not a choice (Enter there must not compact).
    if (key.return && !key.shift && !key.meta && (editor.text !== '/' || editor.menu !== undefined)) {
      edit({ type: 'set', text: `/${chosen.name}` });
      submit();
      return true;
    }
    return false;
  }

  function editorKey(input: string, key: Key): void {
    const { editor } = rt.store.getState();
    if (menuKey(key)) return;
    if (key.return) {
      if (key.shift || key.meta) edit({ type: 'newline' });
      else if (editor.cursor > 0 && editor.text[editor.cursor - 1] === '\\') {
        edit({ type: 'backspace' });
        edit({ type: 'newline' });
      } else submit();
      return;
    }
    if (input === '\n') return edit({ type: 'newline' });
    if (key.tab && key.shift) return cycleMode();
    if (key.tab && !key.shift) {
      const result = complete(editor.text, editor.cursor, rt.cwd, mcpSlashCommands(rt.session?.mcp));
      if (result.text !== undefined) edit({ type: 'set', text: result.text, cursor: result.cursor });
      rt.store.dispatch({ type: 'candidates', candidates: result.candidates });
      return;
    }
    if (key.backspace || key.delete) return edit(key.meta ? { type: 'delete-word' } : { type: 'backspace' });
    if (key.leftArrow) return edit(key.ctrl || key.meta ? { type: 'word-left' } : { type: 'left' });
    if (key.rightArrow) return edit(key.ctrl || key.meta ? { type: 'word-right' } : { type: 'right' });
    if (key.upArrow) return edit({ type: 'up' });
    if (key.downArrow) return edit({ type: 'down' });
    if (key.home) return edit({ type: 'line-start' });
    if (key.end) return edit({ type: 'line-end' });
    if (key.ctrl) {
      if (input === 'a') edit({ type: 'line-start' });
      else if (input === 'e') edit({ type: 'line-end' });
      else if (input === 'u') edit({ type: 'kill-line-start' });
      else if (input === 'k') edit({ type: 'kill-line-end' });
      else if (input === 'w') edit({ type: 'delete-word' });
      else if (input === 'b') edit({ type: 'left' });
      else if (input === 'f') edit({ type: 'right' });
      return;
    }
    if (key.meta) {
      if (input === 'b') edit({ type: 'word-left' });
      else if (input === 'f') edit({ type: 'word-right' });
      return;
    }
    if (!input) return;
    if (input.length > 1) return chunk(input);
    edit({ type: 'insert', text: input });
  }

  const router: KeyRouter = {
    handle(input, key) {
      if (rt.exited) return;
      if (pasting) {
        if (input === PASTE_END) {
          pasting = false;
          edit({ type: 'paste', text: pasteBuffer });
          pasteBuffer = '';
        } else pasteBuffer += key.return ? '\n' : key.tab ? '\t' : input;
        return;
      }
      const state = rt.store.getState();
      if (!state.editor.text) pasted = false;
      if (input === PASTE_START) {
        pasting = true;
        pasted = true;
        return;
      }
      if (input === PASTE_END) return;
      if (key.ctrl && input === 'c') return rt.interrupt();
      // Ctrl+L: clear the screen and write the transcript again (what a stray write garbled).
      if (key.ctrl && input === 'l') return void rt.opts.scrollback?.redraw?.().catch(() => undefined);
      // Keys typed ahead while the prompt appears go to the input (input/prompt-guard.ts).
      if (state.permission && !rt.broker.holdsKey()) return permissionKey(input, key);
      if (state.picker) return pickerKey(input, key);
      if (key.escape) return rt.escape();
      if (key.ctrl && input === 'o') return rt.toggleExpand();
      if (key.ctrl && input === 'd') {
        if (!state.editor.text) void rt.exit(0);
        else edit({ type: 'delete' });
        return;
      }
      editorKey(input, key);
    },
  };
  return router;
}

/** A control byte Ink would have read as a key of its own (Tab, Enter and line feed excluded). */
const CONTROL_KEY = /[\x00-\x08\x0b\x0c\x0e-\x1a\x7f]/;

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** The key presses in a chunk of typing, as Ink reports single ones: text runs, Enter, Backspace, Ctrl+letter. */
export function typedKeys(input: string): [string, Key][] {
  const keys: [string, Key][] = [];
  let text = '';
  const flush = () => {
    if (text) keys.push([text, NO_KEY]);
    text = '';
  };
  for (const ch of input) {
    const code = ch.charCodeAt(0);
    if (ch === '\r') {
      flush();
      keys.push(['', { ...NO_KEY, return: true }]);
    } else if (ch === '\x7f' || ch === '\b') {
      flush();
      keys.push(['', { ...NO_KEY, backspace: ch === '\b', delete: ch === '\x7f' }]);
    } else if (ch === '\t' || ch === '\n') {
      flush();
      keys.push([ch === '\n' ? '\n' : '', ch === '\t' ? { ...NO_KEY, tab: true } : NO_KEY]);
    } else if (code >= 1 && code <= 26) {
      flush();
      keys.push([String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }]);
    } else if (code >= 0x20) text += ch;
  }
  flush();
  return keys;
}
