/**
 * A running bash command's live tail reaches the REPL's card through `onToolOutput`: a command
 * that prints a credential Keen holds (read from a file, say) must not put it on the screen.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSettings } from '../../src/agent/session-settings.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe('the live tail of a running command', () => {
  it('is scrubbed of the session key before a front end sees it', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-live-tail-'));
    roots.push(root);
    const key = 'plainkeyvalue0123456789abcdefXYZ';
    const shown: string[] = [];
    const settings = readSettings({
      cwd: root,
      env: { KEEN_HOME: path.join(root, 'home'), ANTHROPIC_API_KEY: key, PATH: process.env.PATH },
      flags: { provider: 'anthropic' },
      interactive: true,
      onToolOutput: (_id, tail) => shown.push(tail),
    });
    settings.bashOptions.onOutput?.('call-1', `$ cat notes.txt\nkey=${key}\n`);
    expect(shown).toHaveLength(1);
    expect(shown[0]).not.toContain(key.slice(0, 12));
    expect(shown[0]).toContain('[REDACTED]');
  });
});
