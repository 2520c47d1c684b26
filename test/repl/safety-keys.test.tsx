/**
 * Issue 26, the REPL keys that must be safe: a "no" stops the turn, Shift+Tab never lands in
 * bypassPermissions unasked, `--yolo` says so at start, a paste is never a command, Esc and
 * Ctrl+C interrupt and keep the queued messages for editing. The real runtime against the fake.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { YOLO_WARNING } from '../../src/repl/runtime.js';
import { DENIED_STOP_NOTICE } from '../../src/repl/turn-runner.js';
import { BYPASS_HINT } from '../../src/repl/input/mode-cycle.js';
import { allText, lastUserText } from './fake-requests.js';
import { KEYS, startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SHIFT_TAB = '\x1b[Z';
const paste = (text: string) => `\x1b[200~${text}\x1b[201~`;

describe('"No, tell the agent what to do instead"', () => {
  it('stops the turn: the denial is recorded, no further model request, the input waits', async () => {
    h = await startHarness({
      files: { 'scratch.txt': 'keep me\n' },
      responder: () => ({ steps: [{ toolCall: { name: 'bash', args: { command: 'rm -f scratch.txt && echo removed' } } }] }),
    });
    h.send('clean up');
    await h.waitFor('Allow bash?');
    h.write('3');
    await h.waitFor((f) => f.includes(DENIED_STOP_NOTICE) && f.includes('Type a message'));
    // Give a wrongly continuing turn the time to ask the model again.
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.requests).toHaveLength(1);
    expect(existsSync(path.join(h.ws.cwd, 'scratch.txt'))).toBe(true);

    h.fake.setResponder(() => ({ steps: [{ text: 'Keeping it.' }] }));
    h.send('keep scratch.txt instead');
    await h.waitFor('Keeping it.');
    expect(h.fake.requests).toHaveLength(2);
    const sent = allText(h.fake.requests[1]);
    expect(sent).toContain('tool_result');
    expect(sent).toContain('the user declined this bash call');
    expect(lastUserText(h.fake.requests[1])).toBe('keep scratch.txt instead');
  });

  it('Esc on the prompt is a no too, and the messages queued meanwhile come back to the input', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ toolCall: { name: 'bash', args: { command: 'touch made.txt' } } }] }) });
    h.send('make it');
    await h.waitFor('Allow bash?');
    h.runtime.submit('then run the tests');
    await h.waitFor('↳ queued 1/5: then run the tests');
    h.write(KEYS.esc);
    const frame = await h.waitFor((f) => f.includes(DENIED_STOP_NOTICE) && f.includes('› then run the tests'));
    expect(frame).not.toContain('queued');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.requests).toHaveLength(1);
    expect(existsSync(path.join(h.ws.cwd, 'made.txt'))).toBe(false);
  });
});

describe('Shift+Tab and --yolo', () => {
  it('cycles default → acceptEdits → plan → default, never into bypassPermissions', async () => {
    h = await startHarness();
    const modes: string[] = [];
    for (let i = 0; i < 4; i++) {
      h.write(SHIFT_TAB);
      const before = modes.length;
      await h.waitFor((f) => (f.match(/Permission mode: \w+/g) ?? []).length > before);
      modes.push(
        h
          .frame()
          .match(/Permission mode: \w+/g)!
          .at(-1)!
          .slice('Permission mode: '.length),
      );
    }
    expect(modes).toEqual(['acceptEdits', 'plan', 'default', 'acceptEdits']);
    expect(h.runtime.permissionPolicy.mode).toBe('acceptEdits');
    expect(h.frame()).toContain(BYPASS_HINT);
  });

  it('--yolo shows a warning line at start, and Shift+Tab can come back to bypassPermissions', async () => {
    h = await startHarness({ flags: { yolo: true } });
    await h.waitFor(YOLO_WARNING);
    for (let i = 0; i < 4; i++) h.write(SHIFT_TAB);
    await h.waitFor((f) => (f.match(/Permission mode: \w+/g) ?? []).length === 4);
    expect(h.runtime.permissionPolicy.mode).toBe('bypassPermissions');
  });
});

describe('a paste is never a command', () => {
  it('pasted markdown starting with "# " goes to the model, not to memory', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'Read your notes.' }] }) });
    h.write(paste('# Release notes\n\n- fixed the parser\n- faster start'));
    h.write(KEYS.enter);
    await h.waitFor('Read your notes.');
    expect(h.frame()).not.toContain('Saved to');
    expect(lastUserText(h.fake.requests[0])).toBe('# Release notes\n\n- fixed the parser\n- faster start');
    expect(existsSync(path.join(h.ws.cwd, '.keen', 'memory.md'))).toBe(false);
  });

  it('a pasted single line "/clear" or "# note" is a message too; typed "# note" is still saved', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'Got it.' }] }) });
    h.write(paste('# remember this'));
    h.write(KEYS.enter);
    await h.waitFor('Got it.');
    expect(lastUserText(h.fake.requests[0])).toBe('# remember this');
    h.write(paste('/clear'));
    h.write(KEYS.enter);
    await h.waitFor(() => h!.fake.requests.length === 2);
    expect(lastUserText(h.fake.requests[1])).toBe('/clear');
    h.send('# typed note');
    await h.waitFor('Saved to project memory');
    expect(readFileSync(path.join(h.ws.cwd, '.keen', 'memory.md'), 'utf8')).toContain('typed note');
  });

  it('typed multi-line text starting with "# " is a message', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'Heading seen.' }] }) });
    h.write('# Title\\');
    h.write(KEYS.enter);
    h.write('body');
    h.write(KEYS.enter);
    await h.waitFor('Heading seen.');
    expect(lastUserText(h.fake.requests[0])).toBe('# Title\nbody');
  });
});

describe('Esc and Ctrl+C interrupt', () => {
  it('Esc interrupts a streaming answer', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'partial ' }, { hold: true }, { text: 'never' }] }) });
    h.send('go');
    await h.waitFor('partial');
    h.write(KEYS.esc);
    await h.waitFor((f) => f.includes('· Interrupted') && !f.includes('ctrl+c to interrupt'));
    expect(h.frame()).not.toContain('never');
  });

  it('Esc interrupts a running tool', async () => {
    const command = 'touch started.txt; sleep 1000; touch late.txt';
    h = await startHarness({ responder: () => ({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }), flags: { yolo: true } });
    h.send('wait');
    // Esc once the command runs: it sleeps far beyond the test timeout, so only the interrupt ends it.
    while (!existsSync(path.join(h.ws.cwd, 'started.txt'))) await new Promise((r) => setTimeout(r, 10));
    h.write(KEYS.esc);
    await h.waitFor('· Interrupted');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('Ctrl+C keeps the queued messages in the input for editing instead of sending them', async () => {
    h = await startHarness({ responder: () => ({ steps: [{ text: 'partial ' }, { hold: true }, { text: 'never' }] }) });
    h.send('go');
    await h.waitFor('partial');
    h.send('second');
    h.send('third');
    await h.waitFor('↳ queued 2/5: third');
    h.write(KEYS.ctrlC);
    const frame = await h.waitFor((f) => f.includes('· Interrupted') && f.includes('› second'));
    expect(frame).toContain('third');
    expect(frame).not.toContain('queued');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.requests).toHaveLength(1);
  });
});
