import { describe, expect, it } from 'vitest';
import { canonicalModelName, editDistance, providerMismatch } from '../../src/config/model-lookup.js';
import { closestCommand, mistypedCommand, type CommandLine } from '../../src/cli/mistyped-command.js';

const cli: CommandLine = {
  flags: new Map([
    ['-m', 'required'],
    ['--model', 'required'],
    ['-r', 'optional'],
    ['--resume', 'optional'],
    ['--yolo', 'none'],
    ['-p', 'none'],
  ]),
  commands: ['run', 'exec', 'compact', 'init', 'sessions', 'undo', 'login', 'mcp', 'models', 'context', 'completion', 'help'],
  argumentWords: ['list', 'add', 'remove', 'bash', 'zsh', 'fish', 'codex'],
};

describe('mistypedCommand', () => {
  it('a single word without blanks is a mistyped command, with the close one when there is one', () => {
    expect(mistypedCommand(['sesions'], cli)).toEqual({ word: 'sesions', suggestion: 'sessions', words: ['sesions'] });
    expect(mistypedCommand(['bogus'], cli)).toEqual({ word: 'bogus', suggestion: undefined, words: ['bogus'] });
    expect(mistypedCommand(['--yolo', '-m', 'opus', 'modles'], cli)?.suggestion).toBe('models');
  });

  it('several words only when the first is one slip from a command and the rest are options or command words', () => {
    expect(mistypedCommand(['sesion', 'list'], cli)?.suggestion).toBe('sessions');
    expect(mistypedCommand(['compat', '--continue'], cli)?.suggestion).toBe('compact');
    expect(mistypedCommand(['mpc', 'add'], cli)?.suggestion).toBe('mcp');
    expect(mistypedCommand(['compare', 'a.ts', 'b.ts'], cli)).toBeUndefined();
    expect(mistypedCommand(['hello', 'there'], cli)).toBeUndefined();
    expect(mistypedCommand(['fix', 'the', 'bug'], cli)).toBeUndefined();
    expect(mistypedCommand(['bogus', 'list'], cli)).toBeUndefined();
  });

  it('a message with blanks, a real command, `--`, a headless run and an unknown option are left to commander', () => {
    expect(mistypedCommand(['fix the bug'], cli)).toBeUndefined();
    expect(mistypedCommand(['sessions'], cli)).toBeUndefined();
    expect(mistypedCommand(['--', 'sesions'], cli)).toBeUndefined();
    expect(mistypedCommand(['-p', 'sesions'], cli)).toBeUndefined();
    expect(mistypedCommand(['sesions', '-p'], cli)).toBeUndefined();
    expect(mistypedCommand(['--bogus', 'sesions'], cli)).toBeUndefined();
  });

  it('an optional value takes the next word, as commander does', () => {
    expect(mistypedCommand(['--resume', 'sesions'], cli)).toBeUndefined();
    expect(mistypedCommand(['--resume', '--yolo', 'sesions'], cli)?.word).toBe('sesions');
    expect(mistypedCommand(['--model=opus', 'sesions'], cli)?.word).toBe('sesions');
  });

  it('closestCommand allows one edit up to four letters, two beyond; a swap is one', () => {
    expect(closestCommand('rnu', cli.commands)).toBe('run');
    expect(closestCommand('fix', cli.commands)).toBeUndefined();
    expect(closestCommand('sesion', cli.commands)).toBe('sessions');
    expect(editDistance('mpc', 'mcp')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('model names', () => {
  it('a short name stands for the catalog model unless the config defines the name', () => {
    expect(canonicalModelName('opus')).toBe('claude-opus-5-5');
    expect(canonicalModelName('gpt')).toBe('gpt-5');
    expect(canonicalModelName('opus', { opus: {} })).toBe('opus');
    expect(canonicalModelName('claude-opus-5')).toBe('claude-opus-5');
    expect(canonicalModelName('my-model')).toBe('my-model');
  });

  it('providerMismatch speaks only when the families differ', () => {
    expect(providerMismatch('claude-sonnet-5', 'openai', 'anthropic')).toMatch(/^model "claude-sonnet-5" belongs to anthropic, but the provider is openai;/);
    expect(providerMismatch('gpt-5-codex', 'openai', 'codex')).toBeUndefined();
    expect(providerMismatch('my-model', 'openai', undefined)).toBeUndefined();
  });
});
