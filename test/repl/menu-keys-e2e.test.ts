/**
 * Issue 26: the keys a Claude Code or Codex user presses. In a real terminal (tmux): the `/` menu
 * selects with ↑/↓ and Enter or Tab takes the selection; Ctrl+L clears what a stray write left
 * on the screen and draws the transcript again; `/cost` is `/usage`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();

describe('the / menu, Ctrl+L and /cost', () => {
  it('↑/↓ move the selection; Enter runs the selected command, Tab takes it into the input', async () => {
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('/s', false);
    await t.waitFor((s) => s.includes('❯ /sessions') && s.includes('  /skills'));
    t.keys('Down');
    await t.waitFor((s) => s.includes('❯ /skills') && s.includes('  /sessions'));
    t.keys('Up');
    await t.waitFor('❯ /sessions');
    t.keys('Down');
    await t.waitFor('❯ /skills');
    t.keys('Enter');
    const ran = await t.waitFor('No skills found');
    expect(ran).toContain('› /skills');
    expect(ran).not.toContain('Unknown command');

    t.type('/s', false);
    await t.waitFor('❯ /sessions');
    t.keys('Down', 'Tab');
    await t.waitFor((s) => /│ › \/skills\s*│/.test(s) && !s.includes('❯ /sessions'));
    expect(rig.fake.requests).toHaveLength(0);
  });

  it('Ctrl+L clears a stray write and draws the transcript and the input again', async () => {
    rig.fake.enqueue({ steps: [{ text: 'The answer is 42.' }] });
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('what is the answer?');
    await t.waitFor('The answer is 42.');
    const tty = execFileSync('tmux', ['-L', t.socket, 'display', '-p', '-t', 'main', '#{pane_tty}'], { encoding: 'utf8' }).trim();
    // A background job writing over the screen (here over the transcript's first lines), as one does.
    fs.writeFileSync(tty, '\x1b7\x1b[1;1HSTRAY-OUTPUT-1\x1b[K\r\nSTRAY-OUTPUT-2\x1b[K\x1b8');
    await t.waitFor('STRAY-OUTPUT-2');
    t.keys('C-l');
    const screen = await t.waitFor((s) => !s.includes('STRAY-OUTPUT') && s.includes('The answer is 42.') && s.includes('Type a message'));
    expect(screen).toContain('› what is the answer?');
    expect(screen).toMatch(/^keen \d/);
    expect(t.screen()).not.toContain('STRAY-OUTPUT');
  });

  it('/cost is /usage', async () => {
    const t = rig.start();
    await t.waitFor(/context · session/);
    t.type('/cost');
    const screen = await t.waitFor('Usage this session');
    expect(screen).toContain('cache read');
    expect(screen).not.toContain('Unknown command');
  });
});
