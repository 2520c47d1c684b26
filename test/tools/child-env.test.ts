/**
 * Children Keen starts on its own get an allow-listed environment: no credential reaches them.
 * The pure function, and ripgrep for real (its `--pre` program prints the environment rg got).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, DESKTOP_VARIABLES } from '../../src/security/child-env.js';
import { runRipgrep } from '../../src/tools/ripgrep.js';
import { tempDir } from '../kit/temp-dir.js';

describe('the environment of a child Keen starts on its own', () => {
  it('keeps where things are and how text looks, drops every secret, adds only the names asked for', () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_CTYPE: 'C',
      TERM: 'xterm',
      DISPLAY: ':0',
      ANTHROPIC_API_KEY: 'sk-ant-x',
      OPENAI_API_KEY: 'sk-x',
      AWS_SECRET_ACCESS_KEY: 'a',
      AWS_SESSION_TOKEN: 'b',
      GITHUB_TOKEN: 'c',
      AZURE_CLIENT_SECRET: 'd',
      GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
      SSH_AUTH_SOCK: '/tmp/agent',
      NODE_OPTIONS: '--require /evil.js',
    };
    expect(childEnv(env)).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_CTYPE: 'C', TERM: 'xterm' });
    expect(childEnv(env, DESKTOP_VARIABLES)).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_CTYPE: 'C', TERM: 'xterm', DISPLAY: ':0' });
    // A relative PATH entry would find a program in the folder the child runs in.
    expect(childEnv({ PATH: `node_modules/.bin${path.delimiter}/usr/bin${path.delimiter}.${path.delimiter}` }).PATH).toBe('/usr/bin');
  });

  it('ripgrep runs without Keen’s credentials', async () => {
    const dir = tempDir('keen-rg-env-');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x\n');
    // A preprocessor rg starts for each file: what it prints is searched, so every variable shows.
    const pre = path.join(dir, 'pre.sh');
    fs.writeFileSync(pre, '#!/bin/sh\nenv\n', { mode: 0o755 });
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-rg-env-test';
    const lines: string[] = [];
    try {
      const run = await runRipgrep(['--no-config', '--pre', pre, '--no-filename', '=', path.join(dir, 'a.txt')], {
        cwd: dir,
        signal: new AbortController().signal,
        onLine: (l) => lines.push(l),
      });
      expect(run.code).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
    expect(lines.some((l) => l.startsWith('PATH='))).toBe(true);
    expect(lines.join('\n')).not.toContain('sk-ant-rg-env-test');
  });
});
