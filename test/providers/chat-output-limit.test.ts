import { describe, expect, it } from 'vitest';
import { outputLimitField } from '../../src/providers/openai-chat.js';
import { resolveOpenAIEndpoint } from '../../src/providers/openai-sdk.js';

/** The field a Chat request's output limit goes in, for `model` at the endpoint these settings name. */
function fieldFor(model: string, at: { baseURL?: string; env?: NodeJS.ProcessEnv }, configured?: 'max_tokens' | 'max_completion_tokens') {
  const endpoint = resolveOpenAIEndpoint({ apiKey: 'sk-test', baseURL: at.baseURL, env: at.env ?? {} });
  return outputLimitField(model, endpoint.official, configured);
}

describe('outputLimitField: where a Chat request puts its output limit', () => {
  it('api.openai.com gets max_completion_tokens for a non-reasoning model too (gpt-4o)', () => {
    expect(fieldFor('gpt-4o', {})).toBe('max_completion_tokens');
    expect(fieldFor('gpt-4o', { baseURL: 'https://api.openai.com/v1' })).toBe('max_completion_tokens');
    expect(fieldFor('gpt-4o', { env: { OPENAI_BASE_URL: 'https://api.openai.com/v1' } })).toBe('max_completion_tokens');
  });

  it('a compatible server keeps max_tokens for gpt-4o, and gets max_completion_tokens for the reasoning models', () => {
    const local = { baseURL: 'http://127.0.0.1:11434/v1' };
    expect(fieldFor('gpt-4o', local)).toBe('max_tokens');
    for (const model of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5.1', 'openai/gpt-5']) expect(fieldFor(model, local)).toBe('max_completion_tokens');
    // A look-alike host is not OpenAI's API.
    expect(fieldFor('gpt-4o', { baseURL: 'https://api.openai.com.example.test/v1' })).toBe('max_tokens');
  });

  it('config (maxTokensField) decides over both', () => {
    expect(fieldFor('gpt-4o', {}, 'max_tokens')).toBe('max_tokens');
    expect(fieldFor('llama3', { baseURL: 'http://127.0.0.1:11434/v1' }, 'max_completion_tokens')).toBe('max_completion_tokens');
  });
});
