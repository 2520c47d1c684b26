import { describe, expect, it } from 'vitest';
import { editorReducer, emptyEditor, expandPastes, type EditorCommand, type EditorState } from '../../src/repl/input/editor.js';

const run = (s: EditorState, ...cmds: EditorCommand[]) => cmds.reduce(editorReducer, s);
const type = (text: string): EditorCommand => ({ type: 'insert', text });

describe('prompt editor', () => {
  it('edits a multi-line input and moves between lines keeping the column', () => {
    let s = run(emptyEditor(), type('first line'), { type: 'newline' }, type('second'));
    expect(s.text).toBe('first line\nsecond');
    s = run(s, { type: 'up' });
    expect(s.cursor).toBe(6);
    s = run(s, { type: 'line-end' }, { type: 'down' });
    expect(s.cursor).toBe(s.text.length);
  });

  it('turns pasted CR line breaks into newlines', () => {
    expect(run(emptyEditor(), type('a\r\nb\rc')).text).toBe('a\nb\nc');
  });

  it('recalls history with ↑ on the first line and restores the draft with ↓', () => {
    let s = run(emptyEditor(['old one', 'old two']), type('draft'));
    s = run(s, { type: 'up' });
    expect(s.text).toBe('old two');
    s = run(s, { type: 'up' });
    expect(s.text).toBe('old one');
    s = run(s, { type: 'down' }, { type: 'down' });
    expect(s.text).toBe('draft');
  });

  it('keeps inputs typed before the history file loaded as the newest entries', () => {
    const s = run(emptyEditor(), { type: 'remember', text: 'typed early' }, { type: 'history-loaded', entries: ['from disk'] });
    expect(s.history).toEqual(['from disk', 'typed early']);
  });

  it('deletes words and line parts like a shell', () => {
    const s = run(emptyEditor(), type('git commit -m'), { type: 'delete-word' });
    expect(s.text).toBe('git commit ');
    expect(run(s, { type: 'kill-line-start' }).text).toBe('');
  });
});

describe('the / menu selection', () => {
  it('moves and wraps among the rows, and any edit resets it', () => {
    let s = run(emptyEditor(), { type: 'insert', text: '/s' });
    expect(s.menu).toBeUndefined();
    s = run(s, { type: 'menu-move', delta: 1, rows: 2 });
    expect(s.menu).toBe(1);
    s = run(s, { type: 'menu-move', delta: 1, rows: 2 });
    expect(s.menu).toBe(0);
    s = run(s, { type: 'menu-move', delta: -1, rows: 2 });
    expect(s.menu).toBe(1);
    expect(run(s, { type: 'insert', text: 'k' }).menu).toBeUndefined();
    expect(run(s, { type: 'clear' }).menu).toBeUndefined();
  });
});

describe('long pastes', () => {
  const long = Array.from({ length: 12 }, (_, i) => `l${i}`).join('\n');
  it('a paste of more than PASTE_COLLAPSE_LINES lines is one label; expandPastes sends it whole', () => {
    const s = run(emptyEditor(), type('see '), { type: 'paste', text: long }, type(' then'), { type: 'paste', text: long });
    expect(s.text).toBe('see [Pasted text #1 +12 lines] then[Pasted text #2 +12 lines]');
    expect(expandPastes(s)).toEqual({ text: `see ${long} then${long}`, shown: s.text });
  });
  it('a short paste is text, a deleted label drops its paste, clear forgets them', () => {
    expect(run(emptyEditor(), { type: 'paste', text: 'a\nb' }).text).toBe('a\nb');
    const s = run(emptyEditor(), { type: 'paste', text: long }, { type: 'kill-line-start' }, type('typed'));
    expect(expandPastes(s)).toEqual({ text: 'typed' });
    expect(run(s, { type: 'clear' }).pastes).toBeUndefined();
  });
});
