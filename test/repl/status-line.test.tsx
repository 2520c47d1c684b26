/**
 * The loader's status line: what runs, for how long and the tokens so far. The clock is injected
 * (the turn's start and the loader's `now`), so nothing here depends on the wall clock.
 */
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Loader } from '../../src/repl/components/loader.js';
import { initialUiState, uiReducer } from '../../src/repl/state/ui-reducer.js';
import { compactTokens, statusDetails } from '../../src/repl/state/status-line.js';
import type { UiAction } from '../../src/repl/state/ui-state.js';

afterEach(() => cleanup());

const session = { sessionId: 's', provider: 'anthropic', model: 'm', window: 200_000, inputBudget: 190_000, contextTokens: 10_840 };
const run = (...actions: UiAction[]) => actions.reduce(uiReducer, initialUiState({ session }));
const chat: UiAction = { type: 'turn-start', mode: 'chat', status: 'Thinking…', at: 1_000 };
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('the status line', () => {
  it('says Thinking… with the seconds since the turn started, then Responding… with the tokens streamed', () => {
    let s = run(chat);
    expect(render(<Loader busy={s.busy!} now={() => 13_400} />).lastFrame()).toBe('\n⠋ Thinking… 12s (ctrl+c to interrupt)');
    s = uiReducer(s, { type: 'text', text: `${words(300)}\n` });
    expect(s.busy?.status).toBe('Responding…');
    const frame = render(<Loader busy={s.busy!} now={() => 15_000} />).lastFrame()!;
    const m = /^\n⠋ Responding… 14s · ↓ (\d+) tokens \(ctrl\+c to interrupt\)$/.exec(frame);
    expect(m, frame).not.toBeNull();
    const before = Number(m![1]);
    expect(before).toBeGreaterThan(100);
    s = uiReducer(s, { type: 'text', text: `${words(300)}\n` });
    expect(/↓ (\d+(\.\d)?k?) tokens/.exec(statusDetails(s.busy!, 15_000))![1]).not.toBe(String(before));
  });

  it('counts reasoning as thinking, returns to Thinking… after a tool, and takes the provider report over the estimate', () => {
    let s = run(chat, { type: 'reasoning', text: words(50) });
    expect(s.busy?.status).toBe('Thinking…');
    expect(statusDetails(s.busy!, 1_000)).toMatch(/^0s · ↓ \d+ tokens$/);
    s = uiReducer(s, { type: 'text', text: 'Let me look.' });
    s = uiReducer(s, { type: 'output-usage', tokens: 1_234 });
    expect(statusDetails(s.busy!, 3_000)).toBe('2s · ↓ 1.2k tokens');
    s = uiReducer(s, { type: 'tool-start', card: { id: 't', name: 'bash', args: 'ls', status: 'running', output: '' } });
    expect(s.busy?.status).toBe('Running bash…');
    s = uiReducer(s, { type: 'tool-end', id: 't', status: 'done', output: 'a' });
    expect(s.busy?.status).toBe('Thinking…');
    s = uiReducer(s, { type: 'text', text: 'Done.' });
    expect(s.busy?.status).toBe('Responding…');
  });

  it('shows what a compaction summarises, and the summary tokens a manual one streamed', () => {
    let manual = run({ type: 'turn-start', mode: 'compact', status: 'Compacting...', at: 0 });
    expect(statusDetails(manual.busy!, 4_000)).toBe('4s · summarising 11k tokens');
    manual = uiReducer(manual, { type: 'text', text: words(40) });
    expect(manual.busy?.status).toBe('Compacting...');
    expect(render(<Loader busy={manual.busy!} now={() => 5_000} />).lastFrame()).toMatch(/^\n⠋ Compacting\.\.\. 5s · summarising 11k tokens · ↓ \d+ tokens \(esc to cancel\)$/);

    let auto = run(chat, { type: 'text', text: 'Reading.' }, { type: 'context', tokens: 52_000 }, { type: 'auto-compaction', phase: 'started' });
    expect(render(<Loader busy={auto.busy!} now={() => 9_000} />).lastFrame()).toBe('\n⠋ Compacting... 8s · summarising 52k tokens (esc to cancel)');
    auto = uiReducer(auto, { type: 'auto-compaction', phase: 'cancelled' });
    expect(statusDetails(auto.busy!, 9_000)).toMatch(/^8s · ↓ \d+ tokens$/);
  });

  it('writes token counts short', () => {
    expect([0, 999, 1_000, 1_234, 9_960, 12_345, 1_250_000].map(compactTokens)).toEqual(['0', '999', '1k', '1.2k', '10k', '12k', '1.3M']);
  });
});
