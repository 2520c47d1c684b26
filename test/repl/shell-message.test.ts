/** `!command` input (src/repl/shell-message.ts): which lines are commands, and their replay as a bash card. */
import { describe, expect, it } from 'vitest';
import { replayItems } from '../../src/repl/replay.js';
import { parseShellMessage, shellCommandOf, shellMessage } from '../../src/repl/shell-message.js';

const ts = '2026-12-01T00:00:00.000Z';

describe('shellCommandOf', () => {
  it('a typed single line starting with ! is a command', () => {
    expect(shellCommandOf('!ls -la')).toBe('ls -la');
    expect(shellCommandOf('  ! git status ')).toBe('git status');
  });
  it('a paste, several lines, or a bare ! is a message', () => {
    expect(shellCommandOf('!ls', true)).toBeUndefined();
    expect(shellCommandOf('!ls\nrm -rf x')).toBeUndefined();
    expect(shellCommandOf('!')).toBeUndefined();
    expect(shellCommandOf('say !ls')).toBeUndefined();
  });
});

describe('the shell message', () => {
  it('round-trips, and any other text is not one', () => {
    const text = shellMessage('echo hi', 'hi\n[exit code 0]');
    expect(parseShellMessage(text)).toEqual({ command: 'echo hi', output: 'hi\n[exit code 0]' });
    expect(parseShellMessage('<shell-command>x</shell-command>')).toBeUndefined();
  });
  it('replays as what the user typed and a bash card', () => {
    const items = replayItems([
      { seq: 2, ts, kind: 'user_message', message: { role: 'user', content: shellMessage('false', '(no output)\n[exit code 1]') } },
      { seq: 3, ts, kind: 'user_message', message: { role: 'user', content: shellMessage('echo hi', 'hi\n[exit code 0]') } },
    ]);
    expect(items).toEqual([
      { kind: 'user', text: '!false', attachments: [] },
      { kind: 'tool', card: { id: 'shell-2', name: 'bash', args: 'false', status: 'error', output: '(no output)\n[exit code 1]' }, expanded: false },
      { kind: 'user', text: '!echo hi', attachments: [] },
      { kind: 'tool', card: { id: 'shell-3', name: 'bash', args: 'echo hi', status: 'done', output: 'hi\n[exit code 0]' }, expanded: false },
    ]);
  });
});
