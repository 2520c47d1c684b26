import { statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputHistory } from '../../src/repl/input/history-store.js';
import { tempDir } from '../kit/temp-dir.js';

let root: string;

describe('REPL input history: private and redacted', () => {
  it('is 0600 in a 0700 folder even under umask 0, and a pasted key is stored redacted', async () => {
    root = tempDir('keen-history-');
    const env = { ANTHROPIC_API_KEY: 'plain-anthropic-value-42' };
    const history = new InputHistory(path.join(root, 'history', 'p.jsonl'), env);
    const old = process.umask(0);
    try {
      await history.append('use key sk-ant-api03-PASTEDpastedPASTED0123456789 please');
      await history.append('and plain-anthropic-value-42 too, in /home/me/app');
    } finally {
      process.umask(old);
    }
    expect(statSync(path.join(root, 'history')).mode & 0o777).toBe(0o700);
    expect(statSync(history.file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(history.file, 'utf8');
    expect(bytes).not.toContain('PASTEDpasted');
    expect(bytes).not.toContain('plain-anthropic-value-42');
    expect(await history.load()).toEqual(['use key [REDACTED] please', 'and [REDACTED] too, in /home/me/app']);
  });
});
