import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/repl/input/completion.js';
import { InputHistory } from '../../src/repl/input/history-store.js';
import { expandMentions, splitAttachments } from '../../src/repl/input/mentions.js';
import { parseInput, unknownCommandHint } from '../../src/repl/slash-commands.js';
import { tempDir, tempProject } from '../kit/temp-dir.js';

describe('slash commands', () => {
  it('parses commands, aliases and arguments; a path is a message', () => {
    expect(parseInput('/compact keep the API notes')).toEqual({ kind: 'command', name: 'compact', args: 'keep the API notes' });
    expect(parseInput('/new')).toEqual({ kind: 'command', name: 'clear', args: '' });
    expect(parseInput('/usr/bin/env is missing')).toEqual({ kind: 'message', text: '/usr/bin/env is missing' });
    expect(parseInput('/compcat')).toEqual({ kind: 'unknown', name: 'compcat' });
    expect(unknownCommandHint('compcat')).toBe('Unknown command /compcat. Did you mean /compact? Type /help for the list.');
  });
});

describe('Tab completion', () => {
  it('completes a unique command and lists several', () => {
    expect(complete('/us', 3, '/')).toEqual({ text: '/usage', cursor: 6, candidates: [] });
    expect(complete('/c', 2, '/')).toEqual({ text: '/c', cursor: 2, candidates: ['/compact', '/clear', '/context'] });
  });

  it('completes @paths directory by directory', () => {
    const cwd = tempProject({ 'src/parser.ts': '', 'src/parse-args.ts': '', 'README.md': '' });
    expect(complete('look at @sr', 11, cwd)).toEqual({ text: 'look at @src/', cursor: 13, candidates: [] });
    expect(complete('look at @src/p', 14, cwd)).toEqual({ text: 'look at @src/parse', cursor: 18, candidates: ['@src/parse-args.ts', '@src/parser.ts'] });
    expect(complete('@src/parser and more', 11, cwd)).toEqual({ text: '@src/parser.ts and more', cursor: 14, candidates: [] });
  });
});

describe('@file mentions', () => {
  it('attaches files inside the project and reports the rest', () => {
    const cwd = tempProject({ 'a.md': 'alpha\n', 'bin.dat': 'x\0y' });
    const out = expandMentions('compare @a.md, @bin.dat, @../secret and @missing.txt', cwd);
    expect(out.text).toBe('compare @a.md, @bin.dat, @../secret and @missing.txt\n\n<attached_file path="a.md">\nalpha\n</attached_file>');
    expect(out.attachments).toEqual([{ path: 'a.md', lines: 2, truncated: false }]);
    expect(out.problems).toEqual(['@bin.dat looks binary; not attached', '@../secret is outside the working directory; not attached']);
    expect(splitAttachments(out.text)).toEqual({ text: 'compare @a.md, @bin.dat, @../secret and @missing.txt', attachments: ['a.md'] });
  });
});

describe('input history file', () => {
  it('survives a torn last line and keeps multi-line entries', async () => {
    const root = tempDir('keen-history-');
    const history = new InputHistory(path.join(root, 'history', 'p.jsonl'));
    await history.append('first');
    await history.append('two\nlines');
    appendFileSync(history.file, '"torn');
    expect(await history.load()).toEqual(['first', 'two\nlines']);
  });
});
