/**
 * The line a PreToolUse hook's rewritten input puts at the top of the call's result: what the
 * user's card, the transcript and the model read, so it must be safe to send and to store.
 */
import { describe, expect, it } from 'vitest';
import { changedInputNote } from '../../src/hooks/hooks-registry.js';

/** A lone UTF-16 surrogate (the API refuses a body holding one). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('changedInputNote', () => {
  it('never cuts an emoji in half, wherever the cut falls', () => {
    for (let pad = 250; pad < 300; pad++) {
      const note = changedInputNote({ command: `echo ${'x'.repeat(pad)}${'😀'.repeat(40)} done` });
      expect(note).toMatch(/…$/);
      expect(note).not.toMatch(LONE_SURROGATE);
    }
  });

  it('redacts a credential before the cut, so no recognisable half of it is kept', () => {
    const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    for (let pad = 230; pad < 300; pad += 7) {
      const note = changedInputNote({ command: `curl -H 'Authorization: token ${token}' ${'x'.repeat(pad)}` });
      expect(note).not.toContain('ghp_A1b2');
    }
    expect(changedInputNote({ command: `echo ${token}` })).toBe('Input changed by a PreToolUse hook; ran with: {"command":"echo [REDACTED]"}');
  });
});
