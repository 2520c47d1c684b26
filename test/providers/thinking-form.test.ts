import { describe, expect, it } from 'vitest';
import { takesAdaptiveThinking, thinkingFields, thinkingMaxTokens } from '../../src/providers/kit/thinking-form.js';
import { MODEL_CATALOG } from '../../src/config/models.js';

describe('the thinking form per Claude model', () => {
  it.each([
    ['claude-opus-4-6', true],
    ['claude-sonnet-4-6', true],
    ['claude-opus-5', true],
    ['claude-sonnet-5-5', true],
    ['claude-mythos-preview', true],
    ['anthropic.claude-opus-4-6-v1', true],
    ['us.anthropic.claude-opus-4-7', true],
    ['claude-haiku-4-5', false],
    ['claude-haiku-4-5-20251001', false],
    ['claude-sonnet-4-5-20250929', false],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', false],
    ['claude-3-7-sonnet-20250219', false],
    ['test-model', false],
  ])('%s: adaptive %s', (model, adaptive) => {
    expect(takesAdaptiveThinking(model)).toBe(adaptive);
  });

  it('every Anthropic model of the catalog from 4.6 on gets the adaptive form', () => {
    const newer = Object.keys(MODEL_CATALOG).filter((m) => MODEL_CATALOG[m].provider === 'anthropic' && m !== 'claude-haiku-4-5');
    for (const m of newer) expect(thinkingFields(m, 20_000, 64_000)).toEqual({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });

  it('the budget form sends the whole budget when the output limit holds it, else none: never a shrunk one', () => {
    expect(thinkingFields('claude-haiku-4-5', 16_000, 32_000)).toEqual({ thinking: { type: 'enabled', budget_tokens: 16_000 } });
    expect(thinkingFields('claude-haiku-4-5', 4096, 3000)).toEqual({});
    expect(thinkingFields('claude-haiku-4-5', 4096, 4096)).toEqual({});
    expect(thinkingFields('claude-haiku-4-5', 1000, 32_000)).toEqual({});
    expect(thinkingFields('claude-opus-5', 0, 64_000)).toEqual({});
  });

  it('max_tokens stays above the budget', () => {
    const fields = thinkingFields('claude-haiku-4-5', 16_000, 32_000);
    expect(thinkingMaxTokens(fields, 9000)).toBe(16_001);
    expect(thinkingMaxTokens(fields, 20_000)).toBe(20_000);
    expect(thinkingMaxTokens({}, 900)).toBe(900);
  });
});
