import { describe, expect, it } from 'vitest';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type CompactionPolicy } from '../../src/tokens/context-budget.js';

const capacity = (contextWindow: number, maxOutputTokens = 8_192) => ({ contextWindow, maxOutputTokens });
const policy = (p: Partial<CompactionPolicy> = {}): CompactionPolicy => ({ ...DEFAULT_COMPACTION_POLICY, ...p });

describe('computeBudget', () => {
  it('turns a 100,000-token window into a 95,000 budget and an 85,500 threshold', () => {
    expect(computeBudget(capacity(100_000), policy())).toEqual({ window: 100_000, inputBudget: 95_000, threshold: 85_500, autoEnabled: true });
  });

  it('uses 5% of a large window as the margin and 4096 tokens for a small one', () => {
    expect(computeBudget(capacity(200_000), policy())).toMatchObject({ inputBudget: 190_000, threshold: 171_000 });
    expect(computeBudget(capacity(50_000), policy())).toMatchObject({ inputBudget: 45_904, threshold: 41_313 });
    expect(computeBudget(capacity(10_000), policy())).toMatchObject({ inputBudget: 5_904, threshold: 5_313, autoEnabled: true });
  });

  it('defaults to compacting at 90% of the budget and honours another fraction', () => {
    expect(DEFAULT_COMPACTION_POLICY).toEqual({ auto: true, threshold: 0.9 });
    expect(computeBudget(capacity(100_000), policy({ threshold: 0.5 })).threshold).toBe(47_500);
    expect(computeBudget(capacity(100_000), policy({ threshold: 1 })).threshold).toBe(95_000);
  });

  it('works inside a smaller working window without changing the model capacity', () => {
    const cap = capacity(1_000_000, 32_000);
    expect(computeBudget(cap, policy({ workingWindow: 272_000 }))).toEqual({ window: 272_000, inputBudget: 258_400, threshold: 232_560, autoEnabled: true });
    expect(cap).toEqual({ contextWindow: 1_000_000, maxOutputTokens: 32_000 });
    // A working window larger than the capacity cannot raise it.
    expect(computeBudget(capacity(100_000), policy({ workingWindow: 500_000 })).window).toBe(100_000);
  });

  it('disables automatic compaction with one warning when a tiny window leaves no budget', () => {
    for (const window of [4_096, 3_000, 0]) {
      const b = computeBudget(capacity(window), policy());
      expect(b.autoEnabled).toBe(false);
      expect(b.inputBudget).toBe(0);
      expect(b.warning).toMatch(/^automatic compaction is off: the model's context window .* leaves no input budget/);
      expect(b.warning).not.toContain('\n');
    }
  });

  it('names compaction.workingWindow when that is what leaves no budget', () => {
    const b = computeBudget(capacity(200_000), policy({ workingWindow: 4_000 }));
    expect(b.autoEnabled).toBe(false);
    expect(b.warning).toBe('automatic compaction is off: compaction.workingWindow 4,000 leaves no input budget after the 4,096-token safety margin');
  });

  it('disables automatic compaction when the threshold fraction leaves a zero threshold', () => {
    const b = computeBudget(capacity(100_000), policy({ threshold: 0 }));
    expect(b).toMatchObject({ inputBudget: 95_000, threshold: 0, autoEnabled: false });
    expect(b.warning).toBe('automatic compaction is off: compaction.threshold 0 gives a threshold of 0 tokens');
  });

  it('caps a threshold fraction above 1 at the whole budget, with a warning', () => {
    const b = computeBudget(capacity(100_000), policy({ threshold: 1.5 }));
    expect(b).toMatchObject({ threshold: 95_000, autoEnabled: true });
    expect(b.warning).toBe('compaction.threshold 1.5 is above 1; using 1 (the whole input budget)');
  });

  it('reports the budget but no warning when the user turned automatic compaction off', () => {
    expect(computeBudget(capacity(100_000), policy({ auto: false }))).toEqual({ window: 100_000, inputBudget: 95_000, threshold: 85_500, autoEnabled: false });
    expect(computeBudget(capacity(1_000), policy({ auto: false })).warning).toBeUndefined();
  });
});
