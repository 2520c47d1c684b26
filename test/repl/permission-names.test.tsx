/**
 * `/permissions allow|deny RULE` takes Claude Code's tool names as aliases and refuses a rule that
 * names no tool (issue 26): the real runtime against the loopback fake.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { afterToolResult } from './fake-requests.js';
import { startHarness, type ReplHarness } from './harness.js';

let h: ReplHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Every message makes the model run `touch made`, then answer "ran it". */
const toucher = (req: Parameters<NonNullable<Parameters<typeof startHarness>[0]>['responder'] & object>[0]) =>
  afterToolResult(req) ? { steps: [{ text: 'ran it' }] } : { steps: [{ toolCall: { name: 'bash', args: { command: 'touch made' } } }] };

describe('/permissions and tool names', () => {
  it('/permissions deny Bash is a deny rule for bash, even with --yolo', async () => {
    h = await startHarness({ flags: { yolo: true }, responder: toucher });
    await h.waitFor('session <id>');
    h.send('/permissions deny Bash');
    await h.waitFor('Added deny rule bash for this session.');
    h.send('go');
    await h.waitFor('ran it');
    expect(existsSync(path.join(h.ws.cwd, 'made'))).toBe(false);
    expect(JSON.stringify(h.fake.requests.at(-1)?.body.messages)).toContain('blocked by the rule \\"bash\\"');
  });

  it('/permissions allow Bassh is one error line with the close name, and adds nothing', async () => {
    h = await startHarness({ responder: toucher });
    await h.waitFor('session <id>');
    h.send('/permissions allow Bassh');
    const frame = await h.waitFor('no tool is named "Bassh"');
    expect(frame.replace(/\s+/g, ' ')).toContain('invalid permission rule "Bassh": no tool is named "Bassh" (did you mean bash?)');
    expect(h.runtime.permissionPolicy.allow.map((e) => e.rule.text)).toEqual([]);
    h.send('/permissions allow Bash(git:*)');
    await h.waitFor('Added allow rule bash(git:*) for this session.');
  });
});
