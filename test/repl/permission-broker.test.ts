/**
 * The permission broker (src/repl/permission-broker.ts) with the real UI store: a prompt's detail
 * that the terminal cannot show whole is written to the transcript above it first — when the
 * question opens, or later, when the terminal shrinks while it is open.
 */
import { describe, expect, it } from 'vitest';
import { PermissionBroker } from '../../src/repl/permission-broker.js';
import { initialUiState } from '../../src/repl/state/ui-reducer.js';
import { createUiStore } from '../../src/repl/state/ui-store.js';
import type { PermissionRequest } from '../../src/tools/types.js';

const diff = ['--- a/notes.txt', '+++ b/notes.txt', '@@ -0,0 +1,20 @@', ...Array.from({ length: 20 }, (_, i) => `+note ${i}`)].join('\n');
const request = { tool: 'write_file', summary: 'write notes.txt (20 lines)', detail: diff } as unknown as PermissionRequest;

describe('PermissionBroker', () => {
  it('writes a diff whole above the prompt when the terminal shrinks below it while the question is open, once', () => {
    const store = createUiStore(initialUiState({ items: [] }));
    let size = { rows: 60, columns: 100 };
    const broker = new PermissionBroker(store, () => size);
    const answered = broker.ask(request);
    const diffs = () => store.getState().items.filter((i) => i.kind === 'diff');
    expect(diffs()).toHaveLength(0);
    expect(store.getState().permission?.fullDiffAbove).toBeUndefined();

    broker.refit();
    expect(diffs()).toHaveLength(0);
    size = { rows: 20, columns: 100 };
    broker.refit();
    broker.refit();
    expect(diffs()).toHaveLength(1);
    expect(diffs()[0]).toMatchObject({ kind: 'diff', title: 'write_file: write notes.txt (20 lines)', diff });
    expect(store.getState().permission?.fullDiffAbove).toBe(true);

    broker.answer('once');
    broker.refit();
    expect(diffs()).toHaveLength(1);
    return answered.then((answer) => expect(answer).toBe('once'));
  });

  it('a long bash command is written above as a block of its lines', () => {
    const store = createUiStore(initialUiState({ items: [] }));
    const command = Array.from({ length: 40 }, (_, i) => `echo ${i}`).join('\n');
    const broker = new PermissionBroker(store, () => ({ rows: 24, columns: 80 }));
    void broker.ask({ tool: 'bash', summary: 'run a script', detail: command } as unknown as PermissionRequest);
    expect(store.getState().items.filter((i) => i.kind === 'block')).toEqual([expect.objectContaining({ title: 'bash: run a script', lines: command.split('\n') })]);
    expect(store.getState().permission?.fullDiffAbove).toBe(true);
    broker.answer('deny');
  });
});
