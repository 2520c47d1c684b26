/**
 * Issue 29: the JSON result says what the prompt cache saved. `keen -p --output-format json`,
 * spawned against the Anthropic fake reporting cache reads and writes: `cost_without_cache_usd`
 * prices them as plain input, `cache_savings_usd` is what caching took off `total_cost_usd`.
 */
import { describe, expect, it } from 'vitest';
import { useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

// claude-sonnet list price per million tokens: $3 input, $15 output, $0.30 cache read, $3.75 cache write.
const withCache = (u: { input: number; output: number; cacheRead: number; cacheWrite: number }) => (u.input * 3 + u.output * 15 + u.cacheRead * 0.3 + u.cacheWrite * 3.75) / 1e6;
const noCache = (u: { input: number; output: number; cacheRead: number; cacheWrite: number }) => ((u.input + u.cacheRead + u.cacheWrite) * 3 + u.output * 15) / 1e6;

describe('keen -p --output-format json: what the cache saved', () => {
  it('a run that read most of its prompt from the cache shows the cost without caching and the saving', async () => {
    const usage = { input: 200, output: 10, cacheRead: 10_000, cacheWrite: 400 };
    rig.fake.enqueue({ steps: [{ text: 'Cached.' }], usage });

    const r = await rig.keen(workspace(), ['-p', '--output-format', 'json', 'hello']);

    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.usage).toEqual({ input: 200, output: 10, cache_read: 10_000, cache_write: 400 });
    expect(out.total_cost_usd).toBeCloseTo(withCache(usage), 10);
    expect(out.cost_without_cache_usd).toBeCloseTo(noCache(usage), 10);
    expect(out.cache_savings_usd).toBeCloseTo(noCache(usage) - withCache(usage), 10);
    expect(out.cache_savings_usd).toBeGreaterThan(0);
  });

  it('a first run that only wrote the cache shows a negative saving (writes cost more than input)', async () => {
    const usage = { input: 100, output: 5, cacheRead: 0, cacheWrite: 8_000 };
    rig.fake.enqueue({ steps: [{ text: 'Written.' }], usage });

    const r = await rig.keen(workspace(), ['-p', '--output-format', 'json', 'hello']);

    const out = JSON.parse(r.stdout);
    expect(out.cache_savings_usd).toBeCloseTo((-8_000 * 0.75) / 1e6, 10);
    expect(out.cost_without_cache_usd).toBeCloseTo(noCache(usage), 10);
  });

  it('a model without a list price has null for all three', async () => {
    rig.fake.enqueue({ steps: [{ text: 'Unpriced.' }], usage: { input: 100, output: 5, cacheRead: 900, cacheWrite: 0 } });

    const r = await rig.keen(workspace(), ['-p', '--output-format', 'json', '--model', 'claude-mystery-1', 'hello']);

    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.usage.cache_read).toBe(900);
    expect(out).toMatchObject({ total_cost_usd: null, cost_without_cache_usd: null, cache_savings_usd: null });
  });
});
