import { describe, expect, it } from 'vitest';
import { dropsEarlierThinking, keepsAllThinking, takesAdaptiveThinking, thinkingFields, thinkingMaxTokens } from '../../src/providers/kit/thinking-form.js';
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

describe("earlier turns' thinking per Claude model", () => {
  it.each([
    ['claude-opus-4-20250514', true],
    ['claude-opus-4-0', true],
    ['claude-opus-4-1-20250805', true],
    ['claude-sonnet-4-20250514', true],
    ['claude-sonnet-4-5', true],
    ['claude-haiku-4-5-20251001', true],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['us.anthropic.claude-opus-4-1-20250805-v1:0', true],
    ['claude-opus-4-5-20251101', false],
    ['claude-sonnet-4-6', false],
    ['claude-opus-4-6', false],
    ['anthropic.claude-opus-4-7', false],
    ['claude-sonnet-5-5', false],
    ['claude-mythos-preview', false],
    ['claude-3-7-sonnet-20250219', undefined],
    ['test-model', undefined],
    ['gpt-5', undefined],
  ])('%s drops earlier thinking by default: %s', (id, drops) => {
    expect(dropsEarlierThinking(id)).toBe(drops);
  });

  it('the keep-all edit goes only with thinking on, to a model that drops it', () => {
    expect(keepsAllThinking('claude-sonnet-4-5', thinkingFields('claude-sonnet-4-5', 16_000, 32_000))).toBe(true);
    // The budget does not fit the output limit: thinking is off for the session, so no edit.
    expect(keepsAllThinking('claude-sonnet-4-5', thinkingFields('claude-sonnet-4-5', 16_000, 8000))).toBe(false);
    expect(keepsAllThinking('claude-sonnet-4-5', thinkingFields('claude-sonnet-4-5', 0, 32_000))).toBe(false);
    expect(keepsAllThinking('claude-sonnet-4-6', thinkingFields('claude-sonnet-4-6', 16_000, 32_000))).toBe(false);
    expect(keepsAllThinking('claude-3-7-sonnet-20250219', thinkingFields('claude-3-7-sonnet-20250219', 16_000, 32_000))).toBe(false);
  });

  it('every Claude model of the catalog has a known rule', () => {
    for (const id of Object.keys(MODEL_CATALOG).filter((m) => m.includes('claude'))) expect(dropsEarlierThinking(id), id).not.toBeUndefined();
  });
});
