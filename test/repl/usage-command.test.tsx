/**
 * Issue 29: `/usage` says what the prompt cache saved, at list prices: the cost had cache reads
 * and writes been plain input, against the cost with the cache's prices. In-process REPL against
 * the Anthropic fake reporting cache usage (claude-sonnet: $3/M input, $15/M output, $0.30/M
 * cache read, $3.75/M cache write). And its output count is what the service bills: an xAI
 * server's reasoning tokens, left out of `completion_tokens`, are output (Chat fake, xAI family).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { userConfigPath } from '../../src/config/paths.js';
import { startOpenAIChatFake } from '../fakes/openai-chat-fake.js';
import { tempWorkspace } from '../kit/temp-dir.js';
import { startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('/usage: what the cache saved', () => {
  it('says caching cost extra while the cache was only written, then what it saved once read', async () => {
    h = await startHarness();
    h.fake.enqueue({ steps: [{ text: 'First answer.' }], usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 8000 } });
    h.send('first');
    await h.waitFor('First answer.');
    h.send('/usage');
    // Writes cost $3.75/M against $3/M as input: 8,000 of them, $0.0060 more.
    let frame = await h.waitFor('cache saved');
    expect(frame).toContain('cost         ≈ $0.0345 (list prices, compaction included)');
    expect(frame).toContain('cache saved  nothing yet: cache writes cost ≈ $0.0060 more (cost without caching ≈ $0.0285)');

    h.fake.enqueue({ steps: [{ text: 'Second answer.' }], usage: { input: 200, output: 100, cacheRead: 9000, cacheWrite: 0 } });
    h.send('second');
    await h.waitFor('Second answer.');
    h.send('/usage');
    frame = await h.waitFor('cache saved  ≈');
    expect(frame).toContain('cost         ≈ $0.0393 (list prices, compaction included)');
    expect(frame).toContain('cache saved  ≈ $0.0183 (cost without caching ≈ $0.0576)');
  });

  it('says it is unknown for a model without a list price', async () => {
    h = await startHarness({ flags: { model: 'claude-mystery-1' } });
    h.fake.enqueue({ steps: [{ text: 'Unpriced answer.' }], usage: { input: 100, output: 10, cacheRead: 5000, cacheWrite: 0 } });
    h.send('hello');
    await h.waitFor('Unpriced answer.');
    h.send('/usage');
    const frame = await h.waitFor('cache saved');
    expect(frame).toContain('cache read   5,000 tokens');
    expect(frame).toContain('cache saved  unknown for this model (no list price)');
  });
});

describe('/usage: output as the service bills it', () => {
  it('an xAI server leaving reasoning out of completion_tokens: /usage counts it as output', async () => {
    const fake = await startOpenAIChatFake({ family: 'xai' });
    try {
      // The user's config: a project's may not point a provider at another server.
      const workspace = tempWorkspace();
      mkdirSync(path.dirname(userConfigPath(workspace.home)), { recursive: true });
      writeFileSync(userConfigPath(workspace.home), JSON.stringify({ models: { 'grok-4': { provider: 'openai', baseURL: `${fake.url}/v1`, contextWindow: 256_000 } } }));
      h = await startHarness({ fake, workspace, flags: { model: 'grok-4' } });
      // completion_tokens 26, reasoning_tokens 227, total_tokens 1,253: xAI bills 253 output tokens.
      fake.enqueue({ steps: [{ thinking: 'Let me think.' }, { text: 'Grok answer.' }], usage: { input: 1000, output: 253, reasoning: 227 } });
      h.send('hello');
      await h.waitFor('Grok answer.');
      h.send('/usage');
      const frame = await h.waitFor('output       ');
      expect(frame).toContain('input        1,000 tokens');
      expect(frame).toContain('output       253 tokens');
    } finally {
      await h?.close({ dispose: true });
      h = undefined;
      await fake.close();
    }
  });
});
