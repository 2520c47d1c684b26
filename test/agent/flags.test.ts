import { describe, expect, it } from 'vitest';
import { keptFlags, sessionFlagsOf } from '../../src/agent/flags.js';

describe('session flags: one type from the command line to every session', () => {
  it('keeps every session flag and drops only what is not the session’s (output, -C, the picker, the first message)', () => {
    const flags = sessionFlagsOf({
      provider: 'openai',
      model: 'gpt-5',
      mode: 'plan',
      mcpConfig: ['a.json'],
      trust: true,
      permissionMode: 'acceptEdits',
      addDir: ['/x'],
      maxTurns: 3,
      systemPrompt: 'S',
      outputFormat: 'json',
      cwd: '/elsewhere',
      resume: true,
      initialPrompt: 'hi',
    });
    expect(flags).toEqual({
      provider: 'openai',
      model: 'gpt-5',
      mode: 'plan',
      mcpConfig: ['a.json'],
      trust: true,
      permissionMode: 'acceptEdits',
      addDir: ['/x'],
      maxTurns: 3,
      systemPrompt: 'S',
    });
  });

  it('a reopened REPL session keeps everything but which session and which model', () => {
    expect(keptFlags({ session: 'id', continue: true, provider: 'openai', model: 'm', mode: 'plan', yolo: true, mcpConfig: ['a.json'] })).toEqual({
      mode: 'plan',
      yolo: true,
      mcpConfig: ['a.json'],
    });
  });
});
