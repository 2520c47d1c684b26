/**
 * `sandbox.hostSockets` end to end: the user's own config lets ssh-agent into the sandbox; the
 * same key in a trusted project's config does not.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { toolResults, useCliRig } from './cli-fixtures.js';
import { describeSandbox } from '../kit/sandbox.js';

const { rig, workspace } = useCliRig();

describeSandbox('sandbox.hostSockets', () => {
  it("the user's config opens the ssh-agent socket; a trusted project's cannot", async () => {
    const dir = fs.mkdtempSync(path.join(os.homedir(), '.keen-e2e-agent-'));
    const sock = path.join(dir, 'agent.sock');
    const agent = execFileSync('bash', ['-c', `exec ssh-agent -a ${sock} -s`], { encoding: 'utf8' });
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(agent)?.[1]);
    try {
      const probe = 'echo "sock=[$SSH_AUTH_SOCK]"; ssh-add -l; true';
      const run = async (ws: ReturnType<typeof workspace>) => {
        const from = rig.fake.requests.length;
        rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: probe } } }] }, { steps: [{ text: 'ok' }] });
        expect((await rig.keen(ws, ['run', '--yolo', 'go'], { env: { SSH_AUTH_SOCK: sock } })).code).toBe(0);
        return toolResults(rig.fake.requests[from + 1])[0].text;
      };
      const project = workspace({ '.keen/config.json': JSON.stringify({ sandbox: { hostSockets: ['ssh-agent'] } }) });
      expect(await run(project)).toContain('sock=[]');
      const user = workspace();
      fs.writeFileSync(path.join(user.home, 'config.json'), JSON.stringify({ sandbox: { hostSockets: ['ssh-agent'] } }));
      const text = await run(user);
      expect(text).toContain(`sock=[${sock}]`);
      expect(text).toContain('The agent has no identities.');
    } finally {
      process.kill(pid, 'SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
