import { describe, expect, it } from 'vitest';
import { initialUiState, uiReducer } from '../../src/repl/state/ui-reducer.js';
import type { TranscriptItem, UiAction, UiState } from '../../src/repl/state/ui-state.js';

const run = (...actions: UiAction[]) => actions.reduce(uiReducer, initialUiState());
const start: UiAction = { type: 'turn-start', mode: 'chat', status: 'Thinking…' };

/** The text of committed markdown items, in order (one string per line). */
function committedText(s: UiState): string[] {
  return s.items.flatMap((i: TranscriptItem) =>
    i.kind === 'markdown' ? i.lines.map((l) => ('spans' in l ? l.spans.map((sp) => sp.text).join('') : l.kind === 'blank' ? '' : `<${l.kind}>`)) : [`<${i.kind}>`],
  );
}

describe('streaming into the transcript', () => {
  it('holds a streaming table back until it ends, then commits it as one aligned table', () => {
    let s = run(start, { type: 'text', text: 'Files:\n| name | lines |\n|---|---|\n| a.ts | 1 |\n' });
    expect(committedText(s)).toEqual(['Files:']);
    expect(s.live?.pending).toBe('| name | lines |\n|---|---|\n| a.ts | 1 |\n');
    s = uiReducer(s, { type: 'text', text: '| longer-name.ts | 200 |\nDone.\n' });
    expect(committedText(s)).toEqual(['Files:', '<table>', 'Done.']);
    const table = s.items.flatMap((i: TranscriptItem) => (i.kind === 'markdown' ? i.lines : [])).find((l) => l.kind === 'table');
    expect(table).toMatchObject({
      rows: [
        ['a.ts', '1'],
        ['longer-name.ts', '200'],
      ],
    });
  });

  it('holds a list while it is still streaming, then commits it nested and numbered by marked', () => {
    let s = run(start, { type: 'text', text: 'Steps:\n1. build\n   - comp' });
    expect(committedText(s)).toEqual(['Steps:']);
    expect(s.live?.pending).toBe('1. build\n   - comp');
    s = uiReducer(s, { type: 'text', text: 'ile\n\n1. test\n' });
    expect(committedText(s)).toEqual(['Steps:']);
    expect(s.live?.pending).toBe('1. build\n   - compile\n\n1. test\n');
    s = uiReducer(s, { type: 'text', text: 'All green.\n' });
    expect(committedText(s)).toEqual(['Steps:', 'build', 'compile', '', 'test', 'All green.']);
    const list = s.items.flatMap((i: TranscriptItem) => (i.kind === 'markdown' ? i.lines : [])).filter((l) => l.kind === 'item');
    expect(list).toMatchObject([
      { indent: 0, bullet: '1.' },
      { indent: 1, bullet: '•' },
      { indent: 0, bullet: '2.' },
    ]);
  });

  it('commits a list still open when the turn ends', () => {
    const s = run(start, { type: 'text', text: '- a\n  - b\n' }, { type: 'turn-end' });
    expect(committedText(s)).toEqual(['a', 'b']);
  });

  it('commits complete lines and keeps the unfinished one live', () => {
    const s = run(start, { type: 'text', text: 'First li' }, { type: 'text', text: 'ne\nSecond' });
    expect(committedText(s)).toEqual(['First line']);
    expect(s.live?.pending).toBe('Second');
    expect(s.items[0]).toMatchObject({ kind: 'markdown', lead: true });
  });

  it('holds trailing blank lines until more text comes, and drops them at the end', () => {
    let s = run(start, { type: 'text', text: 'Para one\n\n' });
    expect(committedText(s)).toEqual(['Para one']);
    s = uiReducer(s, { type: 'text', text: 'Para two\n\n\n' });
    expect(committedText(s)).toEqual(['Para one', '', 'Para two']);
    s = uiReducer(s, { type: 'turn-end' });
    expect(committedText(s)).toEqual(['Para one', '', 'Para two']);
    expect(s.live).toBeUndefined();
    expect(s.busy).toBeUndefined();
  });

  it('flushes text before a tool card and shows the running tool in the loader', () => {
    const card = { id: 't1', name: 'bash', args: 'npm test', status: 'running' as const, output: '' };
    let s = run(start, { type: 'text', text: 'Let me run the tests' }, { type: 'tool-start', card });
    expect(committedText(s)).toEqual(['Let me run the tests']);
    expect(s.busy?.status).toBe('Running bash…');
    s = uiReducer(s, { type: 'tool-end', id: 't1', status: 'done', output: 'ok' });
    expect(s.items.at(-1)).toMatchObject({ kind: 'tool', card: { status: 'done', output: 'ok' } });
    expect(s.busy?.status).toBe('Thinking…');
    expect(s.live?.lead).toBe(true);
  });

  it('on an automatic compaction changes only the loader text, then commits what is visible once', () => {
    let s = run(start, { type: 'text', text: 'Working on it' }, { type: 'auto-compaction', phase: 'started' });
    expect(s.busy).toMatchObject({ status: 'Compacting...', autoCompacting: true });
    s = run(start, { type: 'text', text: 'Working on it' }, { type: 'auto-compaction', phase: 'started' }, { type: 'auto-compaction', phase: 'applied' }, { type: 'checkpoint' });
    expect(s.busy).toMatchObject({ status: 'Thinking…', autoCompacting: false });
    expect(committedText(s)).toEqual(['Working on it', '<notice>']);
    expect(s.items.at(-1)).toMatchObject({ kind: 'notice', text: 'Context compacted automatically' });
    expect(s.live?.pending).toBe('');
    s = uiReducer(uiReducer(s, { type: 'text', text: 'Done.' }), { type: 'turn-end' });
    expect(committedText(s)).toEqual(['Working on it', '<notice>', 'Done.']);
  });

  it('restores the loader after a cancelled automatic compaction', () => {
    const s = run(start, { type: 'auto-compaction', phase: 'started' }, { type: 'auto-compaction', phase: 'cancelled' });
    expect(s.busy).toMatchObject({ status: 'Thinking…', autoCompacting: false });
  });

  it('a failed automatic compaction is one readable notice', () => {
    const s = run(start, { type: 'auto-compaction', phase: 'started' }, { type: 'auto-compaction', phase: 'failed', reason: 'Anthropic refused the request (400).' });
    const notice = s.items.find((i) => i.kind === 'notice');
    expect(notice).toMatchObject({ text: 'Automatic compaction failed: Anthropic refused the request (400); continuing without it', tone: 'warning' });
  });

  it('keeps `Compacting...` while a manual compaction has a tool call refused', () => {
    const card = { id: 't', name: 'read_file', args: 'a.ts', status: 'running' as const, output: '' };
    const s = run(
      { type: 'turn-start', mode: 'compact', status: 'Compacting...' },
      { type: 'tool-start', card },
      { type: 'tool-end', id: 't', status: 'error', output: 'refused' },
    );
    expect(s.busy?.status).toBe('Compacting...');
  });

  it('queues at most five inputs', () => {
    const pushes = Array.from({ length: 7 }, (_, i): UiAction => ({ type: 'queue-push', text: `q${i}` }));
    const s = run(...pushes);
    expect(s.queue).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
    expect(uiReducer(s, { type: 'queue-shift' }).queue[0]).toBe('q1');
  });
});
