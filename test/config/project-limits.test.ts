import { describe, expect, it } from 'vitest';
import { stripNeverFromProject } from '../../src/config/project-limits.js';
import { WITHHELD_FROM_COMMANDS } from '../../src/tools/bash.js';

describe('what a project config may never set', () => {
  it('drops credential envPassthrough entries, sandbox.network and a looser sandbox mode', () => {
    const user = { providers: { openai: { apiKeyEnv: 'MY_LLM' } } };
    const project = { bash: { envPassthrough: ['ANTHROPIC_API_KEY', 'NPM_TOKEN', 'MY_LLM', 'LANG'] }, sandbox: { network: true, mode: 'off' as const } };
    const r = stripNeverFromProject(project, user);
    expect(r.config).toEqual({ bash: { envPassthrough: ['LANG'] }, sandbox: {} });
    expect(r.dropped).toEqual(['bash.envPassthrough (ANTHROPIC_API_KEY, NPM_TOKEN, MY_LLM)', 'sandbox.network', 'sandbox.mode (off)']);
  });

  it('refuses every variable the bash tool withholds', () => {
    for (const name of WITHHELD_FROM_COMMANDS) expect(stripNeverFromProject({ bash: { envPassthrough: [name] } }, {}).dropped).toEqual([`bash.envPassthrough (${name})`]);
  });

  it('keeps what only tightens: network false, a stricter mode', () => {
    const project = { sandbox: { network: false, mode: 'read-only' as const } };
    expect(stripNeverFromProject(project, {})).toEqual({ config: project, dropped: [] });
    expect(stripNeverFromProject({ sandbox: { mode: 'workspace-write' as const } }, { sandbox: { mode: 'read-only' } }).dropped).toEqual(['sandbox.mode (workspace-write)']);
  });
});
