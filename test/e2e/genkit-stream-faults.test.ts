/**
 * A Gemini stream that fails after text was shown (a cut connection) is one `keen:` line and
 * exit 1, with the text kept: never a crash on an unhandled rejection with a stack trace, which
 * Genkit's streaming channel caused when the failure landed while a chunk was being printed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { assertBuilt, errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace } from '../kit/temp-dir.js';

describe('keen run --provider genkit: a stream that fails mid-reply', () => {
  assertBuilt();
  let fake: ScriptedServer | undefined;
  afterAll(async () => fake?.close());

  it('prints the text so far, one keen: line naming Gemini, exit 1', async () => {
    fake = await startGeminiFake();
    const ws = tempWorkspace();
    try {
      fake.enqueue({ steps: [{ text: 'half an ans' }, { cut: true }] });
      const r = await runKeen(['run', '--provider', 'genkit', 'explain'], {
        cwd: ws.cwd,
        home: ws.home,
        env: { GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: fake.url, KEEN_MAX_RETRIES: '0' },
      });
      expect(r.stdout).toBe('half an ans\n');
      expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: Connection to the Gemini API failed: /)]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code).toBe(1);
    } finally {
      ws.cleanup();
    }
  });
});
