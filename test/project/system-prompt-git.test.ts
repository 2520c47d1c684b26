import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../src/project/system-prompt.js';
import { tempDir } from '../kit/temp-dir.js';

describe("Keen's own git status", () => {
  it('runs no command a repository configured (fsmonitor, hooks, pager)', () => {
    const dir = tempDir('keen-git-');
    const marker = path.join(dir, 'PWNED');
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; echo`], { cwd: dir });
    execFileSync('git', ['config', 'core.pager', `touch ${marker}; cat`], { cwd: dir });
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x\n');
    const prompt = buildSystemPrompt({ cwd: dir });
    expect(prompt).toContain('?? a.txt');
    expect(fs.existsSync(marker)).toBe(false);
    // The same repository does run the hook for a plain `git status`: the test can fail.
    execFileSync('git', ['status'], { cwd: dir, stdio: 'ignore' });
    expect(fs.existsSync(marker)).toBe(true);
  });
});
