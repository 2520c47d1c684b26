import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../src/hooks/matcher.js';
import { createSessionHooks } from '../../src/hooks/session-hooks.js';
import type { HookEvent } from '../../src/config/hooks-schema.js';

const stopping = (event: HookEvent) => ({
  event,
  matches: compileMatcher(undefined),
  command: `printf '%s' '{"continue":false,"stopReason":"enough"}'`,
  timeoutSeconds: 10,
  file: 'config.json',
});

describe('continue: false', () => {
  it('a step hook stops the running turn; SessionStart and Notification only say so', async () => {
    for (const [event, stops] of [
      ['PreToolUse', true],
      ['SessionStart', false],
      ['Notification', false],
    ] as const) {
      const lines: string[] = [];
      const hooks = createSessionHooks({ cwd: process.cwd(), env: process.env, entries: [stopping(event)], warn: (l) => lines.push(l) });
      const heard: string[] = [];
      hooks.onStop((reason) => heard.push(reason));
      expect((await hooks.run(event, 'bash', {})).stop).toBe('enough');
      expect(heard).toEqual(stops ? ['enough'] : []);
      expect(lines).toEqual([stops ? `a ${event} hook stopped the turn: enough` : `a ${event} hook asked to stop (there is no turn to stop): enough`]);
    }
  });
});
