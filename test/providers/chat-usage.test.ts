import { describe, expect, it } from 'vitest';
import { chatOutputTokens } from '../../src/providers/kit/usage.js';

describe('chatOutputTokens: output as each Chat Completions server bills it', () => {
  it('OpenAI: reasoning is inside completion_tokens', () => {
    expect(chatOutputTokens({ prompt_tokens: 100, completion_tokens: 253, total_tokens: 353, completion_tokens_details: { reasoning_tokens: 227 } }, false)).toBe(253);
  });

  it('xAI: reasoning outside completion_tokens but inside total_tokens', () => {
    expect(chatOutputTokens({ prompt_tokens: 100, completion_tokens: 26, total_tokens: 353, completion_tokens_details: { reasoning_tokens: 227 } }, false)).toBe(253);
  });

  it('api.x.ai without a total: the reasoning tokens are added', () => {
    expect(chatOutputTokens({ prompt_tokens: 100, completion_tokens: 26, completion_tokens_details: { reasoning_tokens: 227 } }, true)).toBe(253);
    expect(chatOutputTokens({ prompt_tokens: 100, completion_tokens: 26, completion_tokens_details: { reasoning_tokens: 227 } }, false)).toBe(26);
  });

  it('a total that does not add up the other way never lowers the count', () => {
    expect(chatOutputTokens({ prompt_tokens: 100, completion_tokens: 26, total_tokens: 0 }, true)).toBe(26);
  });
});
