/**
 * A declined answer is an answer that did not succeed: the spawned `keen run` prints what the
 * model said, one `keen:` line saying it declined (with the service's explanation), and exits 1;
 * `--output-format json` carries `stop_reason: "refusal"` and `is_error: true`. Each provider's
 * fake sends its service's own refusal signal (test/fakes/script.ts).
 */
import { describe, expect, it } from 'vitest';
import type { FakeReply } from '../fakes/script.js';
import { assertBuilt, errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { PROVIDER_CASES, providerCase, startProvider } from './provider-cases.js';

const CONTENT_FILTER = ': the content filter stopped the answer';

/** Each provider's line after `keen: the model declined to answer`. */
const EXPLANATION: Record<string, string> = {
  anthropic: ': The request could enable malware development.',
  openai: CONTENT_FILTER,
  'openai-responses': CONTENT_FILTER,
  codex: CONTENT_FILTER,
  bedrock: ': a Bedrock guardrail intervened',
  genkit: ': Gemini finish reason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)',
};

const CASES = PROVIDER_CASES.map((pc) => ({ ...pc, explanation: EXPLANATION[pc.provider] }));

const DECLINED: FakeReply = {
  steps: [{ text: 'I will not write that.' }],
  stopReason: 'refusal',
  refusal: { category: 'cyber', explanation: 'The request could enable malware development.', blocked: ['HARM_CATEGORY_DANGEROUS_CONTENT'] },
};

describe('keen run: a declined answer', () => {
  assertBuilt();
  it.each(CASES.map((c) => [c.provider, c] as const))('%s: the text, one keen: line with the explanation, exit 1', async (_name, c) => {
    const { fake, ws, env } = await startProvider(c);
    fake.enqueue(DECLINED);
    const r = await runKeen(['run', '--provider', c.provider, 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.stdout).toBe('I will not write that.\n');
    expect(errorLines(r.stderr)).toEqual([`keen: the model declined to answer${c.explanation}`]);
    expect(r.code).toBe(1);
  });

  it.each(CASES.map((c) => [c.provider, c] as const))('%s: --output-format json carries stop_reason refusal and is_error', async (_name, c) => {
    const { fake, ws, env } = await startProvider(c);
    fake.enqueue(DECLINED);
    const r = await runKeen(['run', '--provider', c.provider, '--output-format', 'json', 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      type: 'result',
      subtype: 'error_refusal',
      is_error: true,
      stop_reason: 'refusal',
      result: 'I will not write that.',
      error: { kind: 'refusal', message: `the model declined to answer${c.explanation}` },
    });
  });

  it('openai: a refusal in delta.refusal is the answer, not an empty success', async () => {
    const { fake, ws, env } = await startProvider(providerCase('openai'));
    fake.enqueue({ steps: [{ refusal: "I'm sorry, I can't help with that." }] });
    const r = await runKeen(['run', '--provider', 'openai', 'write a keylogger'], { cwd: ws.cwd, home: ws.home, env });
    expect(r.stdout).toBe("I'm sorry, I can't help with that.\n");
    expect(errorLines(r.stderr)).toEqual(['keen: the model declined to answer']);
    expect(r.code).toBe(1);
  });
});
