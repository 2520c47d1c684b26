/** The input queue (src/repl/message-queue.ts): the view shows what the transcript will, the model gets the whole text. */
import { describe, expect, it } from 'vitest';
import { MessageQueue } from '../../src/repl/message-queue.js';
import { initialUiState } from '../../src/repl/state/ui-reducer.js';
import { createUiStore } from '../../src/repl/state/ui-store.js';

const store = () => createUiStore(initialUiState());

describe('MessageQueue', () => {
  it('shows a long paste by its label and hands back the whole text and its origin', () => {
    const s = store();
    const q = new MessageQueue(s);
    q.push('whole\ntext', { pasted: true, shown: '[Pasted text #1 +2 lines]' });
    q.push('next');
    s.dispatch({ type: 'queue-push', text: '/resume abc' });
    expect(s.getState().queue).toEqual(['[Pasted text #1 +2 lines]', 'next', '/resume abc']);
    expect(q.shift()).toEqual({ text: 'whole\ntext', origin: { pasted: true, shown: '[Pasted text #1 +2 lines]' } });
    expect(q.shift()).toEqual({ text: 'next', origin: {} });
    expect(q.shift()).toEqual({ text: '/resume abc', origin: {} });
    expect(q.shift()).toBeUndefined();
  });

  it('recall puts the whole texts back in the input, then what was being typed', () => {
    const s = store();
    const q = new MessageQueue(s);
    q.push('whole\ntext', { shown: '[Pasted text #1 +2 lines]' });
    q.push('second');
    s.dispatch({ type: 'edit', command: { type: 'insert', text: 'typing' } });
    q.recall();
    expect(s.getState().queue).toEqual([]);
    expect(s.getState().editor.text).toBe('whole\ntext\nsecond\ntyping');
  });
});
