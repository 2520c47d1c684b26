import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTEXT_FRESH_MS, projectContextSource } from '../../src/project/project-context.js';
import { looksLikeSlash } from '../../src/project/slash-expansion.js';
import { tempDir } from '../kit/temp-dir.js';

function project(instructions: string): { cwd: string; home: string } {
  const root = tempDir('keen-ctx-source-');
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(cwd);
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(cwd, 'AGENTS.md'), instructions);
  return { cwd, home };
}

const instructionText = (ctx: ReturnType<ReturnType<typeof projectContextSource>['load']>) => ctx.instructions.map((f) => f.content).join('\n');

describe('projectContextSource', () => {
  it("a one-shot run (input known before the open) uses the open's read for its first turn; every later turn reads the folders again", () => {
    const at = { ...project('version one'), env: {} };
    let clock = 0;
    const source = projectContextSource(at, { reuseFirst: true, now: () => clock });
    expect(instructionText(source.current())).toContain('version one');

    fs.writeFileSync(path.join(at.cwd, 'AGENTS.md'), 'version two');
    clock = CONTEXT_FRESH_MS - 1;
    // The open's read, not yet used and under the freshness bound: no second read.
    expect(instructionText(source.load())).toContain('version one');
    // Used once: the next turn reads the file as it is now.
    expect(instructionText(source.load())).toContain('version two');
    expect(instructionText(source.current())).toContain('version two');
  });

  it('a first turn that comes later than the bound reads fresh', () => {
    const at = { ...project('before'), env: {} };
    let clock = 0;
    const source = projectContextSource(at, { reuseFirst: true, now: () => clock });
    fs.writeFileSync(path.join(at.cwd, 'AGENTS.md'), 'after');
    clock = CONTEXT_FRESH_MS;
    expect(instructionText(source.load())).toContain('after');
  });

  it('a session whose first input comes after the open (REPL, stream-json) reads fresh even at once', () => {
    const at = { ...project('before'), env: {} };
    const source = projectContextSource(at, { now: () => 0 });
    fs.writeFileSync(path.join(at.cwd, 'AGENTS.md'), 'after');
    expect(instructionText(source.load())).toContain('after');
  });
});

describe('looksLikeSlash', () => {
  it('is true only for the `/name args` shape expandSlash can expand', () => {
    expect(looksLikeSlash('/review src/a.ts')).toBe(true);
    expect(looksLikeSlash('  /fix  ')).toBe(true);
    expect(looksLikeSlash('say hello')).toBe(false);
    expect(looksLikeSlash('/')).toBe(false);
    expect(looksLikeSlash('/usr/bin/env node')).toBe(false);
  });
});
