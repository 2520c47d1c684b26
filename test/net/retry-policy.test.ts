/** The one retry policy's decisions, pure: what to wait, when to give up, which hints count. */
import { describe, expect, it } from 'vitest';
import { planRetry, retryPolicy } from '../../src/net/retry-fetch.js';
import { bedrockRequestedWaitMs, bedrockRetryStatus } from '../../src/providers/bedrock-retry.js';
import { geminiRequestedWaitMs, genkitRetryStatus } from '../../src/providers/genkit-errors.js';

const policy = { maxRetries: 2, maxWaitMs: 60_000 };

describe('planRetry', () => {
  it('waits what the server asked, up to the cap; beyond it gives up with a note naming both', () => {
    expect(planRetry(policy, 1, 30_000)).toEqual({ kind: 'wait', waitMs: 30_000 });
    expect(planRetry(policy, 1, 86_400_000)).toEqual({
      kind: 'too_long',
      waitMs: 86_400_000,
      note: 'the server asked to wait 86400 s before retrying, more than Keen waits (60 s, config maxRetryWait)',
    });
  });

  it('backs off exponentially without a hint, never beyond the cap', () => {
    const none = () => 0;
    expect([1, 2, 3, 6].map((r) => planRetry({ maxRetries: 9, maxWaitMs: 60_000 }, r, undefined, none))).toEqual([
      { kind: 'wait', waitMs: 500 },
      { kind: 'wait', waitMs: 1000 },
      { kind: 'wait', waitMs: 2000 },
      { kind: 'wait', waitMs: 8000 },
    ]);
    expect(planRetry({ maxRetries: 2, maxWaitMs: 100 }, 2, undefined, none)).toEqual({ kind: 'wait', waitMs: 100 });
  });

  it('gives up after maxRetries', () => {
    expect(planRetry(policy, 3, 10)).toEqual({ kind: 'give_up' });
    expect(planRetry(retryPolicy({ maxRetries: 0 }), 1, undefined)).toEqual({ kind: 'give_up' });
  });

  it('takes its limits from the settings (maxRetryWait in ms), defaults filled in', () => {
    expect(retryPolicy({})).toEqual({ maxRetries: 2, maxWaitMs: 60_000 });
    expect(retryPolicy({ maxRetries: 5, maxRetryWaitMs: 1500 })).toEqual({ maxRetries: 5, maxWaitMs: 1500 });
  });
});

describe("Gemini's retry hint", () => {
  const quota429 = (retryDelay: unknown) => ({
    status: 'RESOURCE_EXHAUSTED',
    detail: {
      error: {
        code: 429,
        message: 'You exceeded your current quota.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
        ],
      },
    },
  });

  it('reads google.rpc.RetryInfo retryDelay (a protobuf Duration)', () => {
    expect(geminiRequestedWaitMs(quota429('34.4s'))).toBe(34_400);
    expect(geminiRequestedWaitMs(quota429('58s'))).toBe(58_000);
    expect(geminiRequestedWaitMs(quota429('soon'))).toBeUndefined();
    expect(genkitRetryStatus(quota429('58s'))).toBe(429);
  });

  it('falls back to the Retry-After Genkit parsed', () => {
    expect(geminiRequestedWaitMs({ responseMetadata: { retryAfterMs: 2000 } })).toBe(2000);
    expect(geminiRequestedWaitMs(new Error('x'))).toBeUndefined();
  });
});

describe('Bedrock retries', () => {
  it('retries throttling, 5xx and broken connections; not a refusal', () => {
    expect(bedrockRetryStatus({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } })).toBe(429);
    expect(bedrockRetryStatus({ name: 'InternalServerException', $metadata: { httpStatusCode: 500 } })).toBe(500);
    expect(bedrockRetryStatus({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } })).toBeUndefined();
    expect(bedrockRetryStatus({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } })).toBeUndefined();
    expect(bedrockRetryStatus(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toBe(0);
    expect(bedrockRetryStatus({ name: 'CredentialsProviderError', message: 'Could not load credentials from any providers' })).toBeUndefined();
  });

  it("reads a response's retry-after", () => {
    expect(bedrockRequestedWaitMs({ $response: { headers: { 'Retry-After': '3' } } })).toBe(3000);
    expect(bedrockRequestedWaitMs({ $response: { headers: {} } })).toBeUndefined();
  });
});
