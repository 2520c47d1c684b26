import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, FALLBACK_CAPACITY, MODEL_CATALOG } from '../../src/config/models.js';
import { resolveModel } from '../../src/config/resolve.js';
import type { KeenConfig } from '../../src/config/schema.js';
import { KeenError } from '../../src/errors.js';

const HOME = '/tmp/keen-home-unused';
const resolve = (config: KeenConfig, flags: { provider?: string; model?: string; profile?: string } = {}, env: NodeJS.ProcessEnv = {}) => resolveModel(config, flags, env, HOME);

describe('resolveModel: which provider and model', () => {
  it('defaults to Anthropic and its default model with the catalog capacity', () => {
    const r = resolve({});
    expect(r.provider).toBe('anthropic');
    expect(r.name).toBe(DEFAULT_MODEL.anthropic);
    expect(r.wireId).toBe(DEFAULT_MODEL.anthropic);
    expect(r.info.contextWindow).toBe(MODEL_CATALOG[DEFAULT_MODEL.anthropic].contextWindow);
    expect(r.settings.home).toBe(HOME);
  });

  it('config provider alone picks that provider default model', () => {
    const r = resolve({ provider: 'openai' });
    expect(r.provider).toBe('openai');
    expect(r.name).toBe(DEFAULT_MODEL.openai);
  });

  it('config model alone picks the provider the catalog knows it by', () => {
    expect(resolve({ model: 'gemini-2.5-pro' }).provider).toBe('genkit');
  });

  it('--model beats config model and config provider', () => {
    const r = resolve({ provider: 'anthropic', model: 'claude-opus-5' }, { model: 'gpt-5' });
    expect(r.name).toBe('gpt-5');
    expect(r.provider).toBe('openai');
    expect(r.info.contextWindow).toBe(MODEL_CATALOG['gpt-5'].contextWindow);
  });

  it('--provider alone uses that provider default model, not the config model', () => {
    const r = resolve({ model: 'claude-opus-5' }, { provider: 'openai' });
    expect(r.provider).toBe('openai');
    expect(r.name).toBe(DEFAULT_MODEL.openai);
  });

  it('--provider and --model together are taken as given', () => {
    const r = resolve({}, { provider: 'openai-responses', model: 'gpt-5-mini' });
    expect(r.provider).toBe('openai-responses');
    expect(r.name).toBe('gpt-5-mini');
  });

  it('config models.<name> overrides catalog facts and can alias a wire id', () => {
    const config: KeenConfig = {
      model: 'fast',
      models: {
        fast: { provider: 'openai', id: 'gpt-5-mini', contextWindow: 50_000, maxOutputTokens: 4_000 },
        'claude-opus-5': { contextWindow: 1_000_000 },
      },
    };
    const fast = resolve(config);
    expect(fast).toMatchObject({ provider: 'openai', name: 'fast', wireId: 'gpt-5-mini', info: { contextWindow: 50_000, maxOutputTokens: 4_000 } });
    const opus = resolve(config, { model: 'claude-opus-5' });
    expect(opus.info).toEqual({ provider: 'anthropic', contextWindow: 1_000_000, maxOutputTokens: MODEL_CATALOG['claude-opus-5'].maxOutputTokens, images: true });
  });

  it("which models take images: the catalog's (also under an alias of their id), not an unknown one, unless its entry says so", () => {
    const config: KeenConfig = {
      models: {
        fast: { provider: 'openai', id: 'gpt-5-mini' },
        local: { provider: 'openai', id: 'qwen-coder' },
        vision: { provider: 'openai', id: 'qwen-vl', images: true },
        'gpt-4o': { images: false },
      },
    };
    const images = (model: string) => resolve(config, { model }).info.images;
    expect([images('claude-sonnet-5'), images('fast'), images('local'), images('vision'), images('gpt-4o')]).toEqual([true, true, false, true, false]);
    expect(resolve({}, { model: 'claude-next-preview' }).info.images).toBe(false);
  });

  it('an unknown model runs on the requested provider with the conservative fallback capacity', () => {
    const r = resolve({}, { model: 'claude-next-preview' });
    expect(r.provider).toBe('anthropic');
    expect(r.info).toMatchObject(FALLBACK_CAPACITY);
    expect(resolve({ provider: 'openai' }, { model: 'my-local' }).provider).toBe('openai');
  });

  it('a model name with a known provider prefix picks that provider', () => {
    expect(resolve({}, { model: 'gpt-9' }).provider).toBe('openai');
    expect(resolve({}, { model: 'o7-mini' }).provider).toBe('openai');
    expect(resolve({}, { model: 'gemini-9-ultra' }).provider).toBe('genkit');
    expect(resolve({}, { model: 'eu.anthropic.claude-opus-9-v1:0' }).provider).toBe('bedrock');
    expect(resolve({ provider: 'anthropic' }, { model: 'gpt-9' }).provider).toBe('openai');
  });

  it('an unknown model nothing vouches for is one line with close names and `keen models`', () => {
    expect(() => resolve({}, { model: 'gtp-5-mini' })).toThrow(/^unknown model "gtp-5-mini"; did you mean gpt-5-mini\b.*`keen models`/);
    expect(() => resolve({}, { model: 'zzzzzzzzzzzzzzzz' })).toThrow(/^unknown model "zzzzzzzzzzzzzzzz"; `keen models`/);
  });

  it('an unknown provider is one line listing the valid ones', () => {
    expect(() => resolve({}, { provider: 'claude' })).toThrow(KeenError);
    expect(() => resolve({}, { provider: 'claude' })).toThrow(/^unknown provider "claude"; choose one of anthropic, openai, openai-responses, codex, bedrock, genkit$/);
  });

  it('--profile beats config awsProfile; region and retries come from config', () => {
    const r = resolve({ awsProfile: 'work', region: 'eu-west-1', maxRetries: 5 }, { provider: 'bedrock', profile: 'personal' });
    expect(r.settings).toMatchObject({ awsProfile: 'personal', region: 'eu-west-1', maxRetries: 5 });
    expect(resolve({ awsProfile: 'work' }).settings.awsProfile).toBe('work');
  });
});

describe('resolveModel: apiKeyEnv and baseURL', () => {
  it('reads the key from the variable a model names', () => {
    const config: KeenConfig = { models: { mine: { provider: 'openai', apiKeyEnv: 'MY_KEY', baseURL: 'http://127.0.0.1:1234/v1' } } };
    const r = resolve(config, { model: 'mine' }, { MY_KEY: 'k-123' });
    expect(r.settings.apiKey).toBe('k-123');
    expect(r.settings.baseURL).toBe('http://127.0.0.1:1234/v1');
  });

  it('falls back to the provider entry, and the model entry wins over it', () => {
    const config: KeenConfig = {
      providers: { anthropic: { apiKeyEnv: 'TEAM_KEY', baseURL: 'http://proxy.local' } },
      models: { special: { provider: 'anthropic', apiKeyEnv: 'SPECIAL_KEY' } },
    };
    const env = { TEAM_KEY: 'team', SPECIAL_KEY: 'special' };
    expect(resolve(config, {}, env).settings).toMatchObject({ apiKey: 'team', baseURL: 'http://proxy.local' });
    expect(resolve(config, { model: 'special' }, env).settings.apiKey).toBe('special');
  });

  it('maxTokensField: the model entry first, else the provider entry', () => {
    const config: KeenConfig = {
      providers: { openai: { baseURL: 'http://127.0.0.1:1234/v1', maxTokensField: 'max_completion_tokens' } },
      models: { old: { provider: 'openai', maxTokensField: 'max_tokens' }, other: { provider: 'openai' } },
    };
    expect(resolve(config, { model: 'old' }).settings.maxTokensField).toBe('max_tokens');
    expect(resolve(config, { model: 'other' }).settings.maxTokensField).toBe('max_completion_tokens');
  });

  it('an unset apiKeyEnv variable is one line naming the variable, the config field and --provider', () => {
    const config: KeenConfig = { models: { mine: { provider: 'openai', apiKeyEnv: 'MY_KEY' } } };
    expect(() => resolve(config, { model: 'mine' })).toThrow(KeenError);
    expect(() => resolve(config, { model: 'mine' })).toThrow(/^MY_KEY is not set \(named by models\.mine\.apiKeyEnv in config\)\..*--provider/);
    expect(() => resolve({ providers: { openai: { apiKeyEnv: 'OAI' } } }, { provider: 'openai' })).toThrow(/^OAI is not set \(named by providers\.openai\.apiKeyEnv in config\)/);
  });

  it('no key needed up front when a baseURL is configured (a local server)', () => {
    const config: KeenConfig = { models: { local: { provider: 'openai', apiKeyEnv: 'LOCAL_KEY', baseURL: 'http://127.0.0.1:8080/v1' } } };
    expect(resolve(config, { model: 'local' }).settings.apiKey).toBeUndefined();
  });

  it('without apiKeyEnv no key is resolved here (the provider reads its own variable)', () => {
    expect(resolve({}, {}, { ANTHROPIC_API_KEY: 'sk-x' }).settings.apiKey).toBeUndefined();
  });
});
