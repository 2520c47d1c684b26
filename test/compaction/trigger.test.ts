/** The automatic-compaction trigger and its back-off (src/compaction/policy.ts), pure. */
import { describe, expect, it } from 'vitest';
import {
  attemptFailed,
  attemptSucceeded,
  decideAutoCompaction,
  MAX_FAILED_ATTEMPTS,
  newAttemptState,
  streamStarted,
  thinkingReserve,
  thresholdWithReserve,
  type TriggerInput,
} from '../../src/compaction/policy.js';
import { computeBudget } from '../../src/tokens/context-budget.js';

const ready: TriggerInput = {
  state: newAttemptState(),
  oneShot: false,
  disableAutoCompaction: false,
  autoEnabled: true,
  pendingState: false,
  messages: 3,
  estimate: 90_000,
  threshold: 85_500,
};

describe('decideAutoCompaction', () => {
  it('runs at the threshold before any request, the first of a stream included (no tool turn needed)', () => {
    expect(decideAutoCompaction(ready)).toMatchObject({ run: true, reason: 'threshold_reached' });
    expect(decideAutoCompaction({ ...ready, estimate: 85_500 })).toMatchObject({ run: true, reason: 'threshold_reached' });
    // A resumed history far over the window: the same rule, nothing else to wait for.
    expect(decideAutoCompaction({ ...ready, messages: 2, estimate: 4_000_000 })).toMatchObject({ run: true, reason: 'threshold_reached' });
  });

  it('sends the request unchanged below the threshold', () => {
    const d = decideAutoCompaction({ ...ready, estimate: 85_499 });
    expect(d).toMatchObject({ run: false, reason: 'below_threshold' });
    expect(d.detail).toBe('estimate 85499 is below the threshold 85500');
  });

  it.each([
    ['one_shot', { oneShot: true }],
    ['disabled_for_stream', { disableAutoCompaction: true }],
    ['disabled_by_policy', { autoEnabled: false }],
    ['suppressed', { state: { failures: MAX_FAILED_ATTEMPTS, minEstimate: 0, messagesAtFailure: 0 } }],
    ['pending_state', { pendingState: true }],
  ] as const)('does not run when %s', (reason, change) => {
    expect(decideAutoCompaction({ ...ready, ...change })).toMatchObject({ run: false, reason });
  });

  it('reports the first condition that stops it, in order', () => {
    let input: TriggerInput = {
      ...ready,
      oneShot: true,
      disableAutoCompaction: true,
      autoEnabled: false,
      state: { failures: MAX_FAILED_ATTEMPTS, minEstimate: 0, messagesAtFailure: 0 },
      pendingState: true,
      estimate: 0,
    };
    const steps: [string, Partial<TriggerInput>][] = [
      ['one_shot', { oneShot: false }],
      ['disabled_for_stream', { disableAutoCompaction: false }],
      ['disabled_by_policy', { autoEnabled: true }],
      ['suppressed', { state: newAttemptState() }],
      ['pending_state', { pendingState: false }],
      ['below_threshold', { estimate: 85_500 }],
    ];
    for (const [reason, fix] of steps) {
      expect(decideAutoCompaction(input).reason).toBe(reason);
      input = { ...input, ...fix };
    }
    expect(decideAutoCompaction(input).run).toBe(true);
  });

  it('never runs on a budget that disabled automatic compaction, however large the estimate', () => {
    const b = computeBudget({ contextWindow: 2_000, maxOutputTokens: 1_000 }, { auto: true, threshold: 0.9 });
    expect(decideAutoCompaction({ ...ready, autoEnabled: b.autoEnabled, threshold: b.threshold, estimate: 1e9 })).toMatchObject({ run: false, reason: 'disabled_by_policy' });
  });
});

describe('the back-off after a failed attempt', () => {
  const at = (state: TriggerInput['state'], estimate: number, messages = 10) => decideAutoCompaction({ ...ready, threshold: 7_000, state, estimate, messages });

  it('waits for growth by half the remaining distance to the input budget', () => {
    const state = attemptFailed(newAttemptState(), 8_000, 10_000, 10);
    expect(state.minEstimate).toBe(9_000);
    expect(at(state, 8_000).reason).toBe('suppressed'); // the same request again
    expect(at(state, 8_999).reason).toBe('suppressed');
    expect(at(state, 9_000).run).toBe(true);
  });

  it('over the budget it still waits for some growth: the unchanged request is never retried', () => {
    const state = attemptFailed(newAttemptState(), 30_000, 10_000, 10);
    expect(at(state, 30_000).reason).toBe('suppressed');
    expect(at(state, 30_001, 11).run).toBe(true);
  });

  it('outlives the stream (a chat session is one stream per turn); the failure cap is per stream', () => {
    let state = newAttemptState();
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) state = attemptFailed(state, 8_000 + i, 10_000, 10 + i);
    expect(at(state, 99_999, 99).reason).toBe('suppressed');
    const next = streamStarted(state);
    expect(next.failures).toBe(0);
    expect(at(next, 8_100, 20).reason).toBe('suppressed'); // a new turn alone is not growth enough
    expect(at(next, 9_500, 20).run).toBe(true);
  });

  it('no longer applies once the history was replaced (fewer messages: a manual compaction, an undo)', () => {
    const state = attemptFailed(newAttemptState(), 8_000, 10_000, 40);
    expect(at(state, 7_500, 40).reason).toBe('suppressed');
    expect(at(state, 7_500, 12).run).toBe(true);
  });

  it('a success clears it', () => {
    const state = attemptSucceeded(attemptFailed(newAttemptState(), 8_000, 10_000, 10));
    expect(state).toEqual(newAttemptState());
    expect(at(state, 8_000).run).toBe(true);
  });
});

describe('the thinking budget as reserved output', () => {
  it('moves the threshold down by the budget’s share of the window, never below half, and not at all without thinking', () => {
    expect(thresholdWithReserve(171_000, 200_000, 0)).toBe(171_000);
    expect(thresholdWithReserve(171_000, 200_000, 16_000)).toBe(157_320);
    expect(thresholdWithReserve(50_000, 60_000, 50_000)).toBe(25_000);
    expect(thinkingReserve(16_000, 32_000)).toBe(16_000);
    expect(thinkingReserve(16_000, 16_000)).toBe(0);
    expect(thinkingReserve(undefined, 32_000)).toBe(0);
  });
});
