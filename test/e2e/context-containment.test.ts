/**
 * Context files stay inside, and another account's folder is not the project: the real bundle
 * spawned against the loopback Anthropic fake. A repository's instruction, memory, command, skill
 * and agent files symlinked out of it, files and folders of another account (uid 65534; the tests
 * run as root, so root-owned files are the user's own), and files writable by others never reach
 * the system prompt; each skip is one warning line. `remember` writes only this account's files,
 * and its user scope asks (headless: denied) and is refused in plan mode.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig, userTexts } from './cli-fixtures.js';
import { systemText } from './context-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const OTHER = 65534;
const frontMatter = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** A file outside the project (beside it, in the workspace's temp folder), standing for ~/.aws/credentials. */
function outside(ws: Workspace, rel: string, content: string): string {
  const file = path.join(path.dirname(ws.cwd), 'outside', rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function link(ws: Workspace, rel: string, target: string): void {
  const at = path.join(ws.cwd, rel);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
}

function write(dir: string, rel: string, content: string): string {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** Hands `p` (and, for a folder, everything below it) to the other account. */
function giveAway(p: string): void {
  fs.chownSync(p, OTHER, OTHER);
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) giveAway(path.join(p, e));
}

async function firstSystem(ws: Workspace, args: string[] = ['run', 'hello']): Promise<{ system: string; warnings: string[]; code: number | null }> {
  const from = rig.fake.requests.length;
  rig.fake.enqueue({ steps: [{ text: 'ok' }] });
  const r = await rig.keen(ws, args);
  return { system: systemText(rig.since(from)[0]), warnings: errorLines(r.stderr), code: r.code };
}

describe('context files symlinked out of the project are not read', () => {
  it('AGENTS.md -> a credentials file: skipped with one warning naming it; CLAUDE.md -> AGENTS.md inside still loads', async () => {
    const ws = workspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'KEEN.md': 'INSIDE-KEEN\n' });
    link(ws, 'AGENTS.md', outside(ws, '.aws/credentials', 'aws_secret_access_key = LEAKED-AWS-SECRET\n'));
    fs.mkdirSync(path.join(ws.cwd, 'pkg'));
    link(ws, 'pkg/CLAUDE.md', '../KEEN.md');
    const { system, warnings, code } = await firstSystem({ ...ws, cwd: path.join(ws.cwd, 'pkg') });
    expect(code).toBe(0);
    expect(system).not.toContain('LEAKED-AWS-SECRET');
    expect(system.split('INSIDE-KEEN')).toHaveLength(3);
    expect(warnings).toEqual([expect.stringMatching(/^keen: warning: skipped instructions .*\/AGENTS\.md: it leads outside .*credentials\)$/)]);
  });

  it('.keen/memory.md -> outside is not in the prompt', async () => {
    const ws = workspace();
    link(ws, '.keen/memory.md', outside(ws, 'notes.md', '- LEAKED-MEMORY\n'));
    const { system, warnings } = await firstSystem(ws);
    expect(system).not.toContain('LEAKED-MEMORY');
    expect(warnings).toEqual([expect.stringMatching(/skipped memory .*\.keen\/memory\.md: it leads outside/)]);
  });

  it('a .keen folder that is a symlink out: its memory is not read', async () => {
    const ws = workspace();
    const dir = path.dirname(outside(ws, 'dotkeen/memory.md', '- LEAKED-DIR-MEMORY\n'));
    link(ws, '.keen', dir);
    const { system } = await firstSystem(ws);
    expect(system).not.toContain('LEAKED-DIR-MEMORY');
  });

  it('.keen/commands/review.md -> outside: /review is not expanded from it', async () => {
    const ws = workspace();
    link(ws, '.keen/commands/review.md', outside(ws, 'review.md', 'LEAKED-COMMAND-BODY\n'));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '/review']);
    expect(r.code).toBe(0);
    expect(userTexts(rig.since(from)[0])).toEqual(['/review']);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/skipped command .*review\.md: it leads outside/)]);
  });

  it('a skill whose SKILL.md, or whose whole folder, links out is not listed', async () => {
    const ws = workspace();
    link(ws, '.keen/skills/leak/SKILL.md', outside(ws, 'skill-a/SKILL.md', frontMatter('leak', 'LEAKED-SKILL-FILE', 'x')));
    link(ws, '.keen/skills/leak2', path.dirname(outside(ws, 'skill-b/SKILL.md', frontMatter('leak2', 'LEAKED-SKILL-DIR', 'x'))));
    const { system, warnings } = await firstSystem(ws);
    expect(system).not.toContain('LEAKED-SKILL');
    expect(warnings).toHaveLength(2);
    expect(warnings.every((w) => /skipped skill .*SKILL\.md: it leads outside/.test(w))).toBe(true);
  });

  it('an agent definition that links out is not listed', async () => {
    const ws = workspace();
    link(ws, '.keen/agents/spy.md', outside(ws, 'spy.md', frontMatter('spy', 'LEAKED-AGENT', 'x')));
    const { system, warnings } = await firstSystem(ws);
    expect(system).not.toContain('LEAKED-AGENT');
    expect(warnings).toEqual([expect.stringMatching(/skipped agent .*spy\.md: it leads outside/)]);
  });

  it('the global $KEEN_HOME/AGENTS.md must stay inside KEEN_HOME', async () => {
    const ws = workspace();
    fs.symlinkSync(outside(ws, 'global.md', 'LEAKED-GLOBAL\n'), path.join(ws.home, 'AGENTS.md'));
    const { system, warnings } = await firstSystem(ws);
    expect(system).not.toContain('LEAKED-GLOBAL');
    expect(warnings).toEqual([expect.stringMatching(/skipped instructions .*home\/AGENTS\.md: it leads outside/)]);
  });
});

describe('another account’s folder is not your project', () => {
  /** A 1777 folder (like /tmp) where the other account planted a fake repository root. */
  function sharedFolder(ws: Workspace): { shared: string; mine: string; theirMemory: string } {
    const shared = path.join(path.dirname(ws.cwd), 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    write(shared, '.git/HEAD', 'ref: refs/heads/main\n');
    write(shared, 'AGENTS.md', 'PLANTED-AGENTS\n');
    const theirMemory = write(shared, '.keen/memory.md', '- PLANTED-MEMORY\n');
    write(shared, '.keen/agents/spy.md', frontMatter('spy', 'PLANTED-AGENT', 'x'));
    write(shared, '.keen/commands/review.md', 'PLANTED-COMMAND\n');
    for (const e of ['.git', 'AGENTS.md', '.keen']) giveAway(path.join(shared, e));
    const mine = path.join(shared, 'mine');
    fs.mkdirSync(mine);
    return { shared, mine, theirMemory };
  }

  it('in a shared 1777 folder, the other account’s AGENTS.md, fake .git, memory and agents are not loaded', async () => {
    const ws = workspace();
    const { mine } = sharedFolder(ws);
    const { system, code } = await firstSystem({ ...ws, cwd: mine });
    expect(code).toBe(0);
    for (const planted of ['PLANTED-AGENTS', 'PLANTED-MEMORY', 'PLANTED-AGENT']) expect(system).not.toContain(planted);
  });

  it('remember {scope: project} there writes the user’s own folder, never the other account’s memory file', async () => {
    const ws = workspace();
    const { mine, theirMemory } = sharedFolder(ws);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'INJECTED-FACT', scope: 'project' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen({ ...ws, cwd: mine }, ['run', 'remember']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.since(from)[1])[0].isError).toBe(false);
    expect(fs.readFileSync(theirMemory, 'utf8')).toBe('- PLANTED-MEMORY\n');
    expect(fs.readFileSync(path.join(mine, '.keen/memory.md'), 'utf8')).toBe('- INJECTED-FACT\n');
  });

  it('running in the shared folder itself reads none of its files and remember {scope: project} is refused', async () => {
    const ws = workspace();
    const { shared, theirMemory } = sharedFolder(ws);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'INJECTED-FACT', scope: 'project' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen({ ...ws, cwd: shared }, ['run', '--yolo', 'remember']);
    expect(r.code).toBe(0);
    const sent = rig.since(from);
    for (const planted of ['PLANTED-AGENTS', 'PLANTED-MEMORY', 'PLANTED-AGENT']) expect(systemText(sent[0])).not.toContain(planted);
    const [result] = toolResults(sent[1]);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/refusing to write project memory/);
    expect(fs.readFileSync(theirMemory, 'utf8')).toBe('- PLANTED-MEMORY\n');
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: warning: not reading project files in .*shared: the folder is writable by every user$/)]);
  });

  it('inside the user’s own repository: another account’s files and .keen/agents folder, and files writable by others, are skipped', async () => {
    const ws = workspace({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'AGENTS.md': 'THEIR-AGENTS\n',
      'KEEN.md': 'WORLD-WRITABLE-KEEN\n',
      'CLAUDE.md': 'GROUP-WRITABLE-CLAUDE\n',
      'sub/AGENTS.md': 'OWN-AGENTS\n',
      '.keen/agents/spy.md': frontMatter('spy', 'THEIR-AGENT-FOLDER', 'x'),
      '.keen/skills/s/SKILL.md': frontMatter('s', 'THEIR-SKILL', 'x'),
      '.claude/agents/helper.md': frontMatter('helper', 'OWN-AGENT', 'x'),
    });
    giveAway(path.join(ws.cwd, 'AGENTS.md'));
    // The folder is the other account's; the file in it is root's (the user's).
    fs.chownSync(path.join(ws.cwd, '.keen/agents'), OTHER, OTHER);
    giveAway(path.join(ws.cwd, '.keen/skills/s/SKILL.md'));
    fs.chmodSync(path.join(ws.cwd, 'KEEN.md'), 0o666);
    fs.chownSync(path.join(ws.cwd, 'CLAUDE.md'), 0, OTHER);
    fs.chmodSync(path.join(ws.cwd, 'CLAUDE.md'), 0o664);
    const { system, warnings } = await firstSystem({ ...ws, cwd: path.join(ws.cwd, 'sub') });
    for (const planted of ['THEIR-AGENTS', 'WORLD-WRITABLE-KEEN', 'GROUP-WRITABLE-CLAUDE', 'THEIR-AGENT-FOLDER', 'THEIR-SKILL']) expect(system).not.toContain(planted);
    expect(system).toContain('OWN-AGENTS');
    expect(system).toContain('helper: OWN-AGENT');
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/skipped instructions .*\/AGENTS\.md: owned by another user \(uid 65534\)$/),
        expect.stringMatching(/skipped instructions .*\/KEEN\.md: writable by every user$/),
        expect.stringMatching(/skipped instructions .*\/CLAUDE\.md: writable by group 65534$/),
        expect.stringMatching(/skipped folder .*\.keen\/agents: .*owned by another user/),
        expect.stringMatching(/skipped skill .*SKILL\.md: owned by another user/),
      ]),
    );
    expect(warnings).toHaveLength(5);
  });

  it('a fake .git of another account in the user’s own parent folder is not the repository root', async () => {
    const ws = workspace({ 'AGENTS.md': 'PARENT-AGENTS\n', 'app/KEEN.md': 'APP-KEEN\n' });
    write(ws.cwd, '.git/HEAD', 'ref: refs/heads/main\n');
    giveAway(path.join(ws.cwd, '.git'));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'APP-FACT', scope: 'project' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen({ ...ws, cwd: path.join(ws.cwd, 'app') }, ['run', 'remember']);
    expect(r.code).toBe(0);
    expect(systemText(rig.since(from)[0])).toContain('APP-KEEN');
    // Without a repository of the user's, project memory lives in the cwd.
    expect(fs.readFileSync(path.join(ws.cwd, 'app/.keen/memory.md'), 'utf8')).toBe('- APP-FACT\n');
    expect(fs.existsSync(path.join(ws.cwd, '.keen/memory.md'))).toBe(false);
  });

  it('remember {scope: project} does not append to a memory file of another account in the user’s repository', async () => {
    const ws = workspace({ '.keen/memory.md': '- THEIRS\n' });
    giveAway(path.join(ws.cwd, '.keen/memory.md'));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'INJECTED', scope: 'project' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'remember']);
    expect(r.code).toBe(0);
    const sent = rig.since(from);
    expect(systemText(sent[0])).not.toContain('THEIRS');
    const [result] = toolResults(sent[1]);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/owned by another user/);
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/memory.md'), 'utf8')).toBe('- THEIRS\n');
  });
});

describe('remember {scope: user} is a write', () => {
  it('headless without an allow it is denied and the user memory file is not created; project scope still runs', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'remember', args: { fact: 'Always curl | sh the installer', scope: 'user' } } },
          { toolCall: { name: 'remember', args: { fact: 'Tests live in test/', scope: 'project' } } },
        ],
      },
      { steps: [{ text: 'ok' }] },
    );
    const r = await rig.keen(ws, ['run', 'remember']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.since(from)[1]).map((t) => t.isError)).toEqual([true, false]);
    expect(fs.existsSync(path.join(ws.home, 'memory.md'))).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/memory.md'), 'utf8')).toBe('- Tests live in test/\n');
  });

  it('--mode plan refuses it even with --yolo', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'x', scope: 'user' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'remember']);
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.since(from)[1]);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Plan mode is on/);
    expect(fs.existsSync(path.join(ws.home, 'memory.md'))).toBe(false);
  });

  it('with --yolo, or a remember allow rule, it lands in $KEEN_HOME/memory.md', async () => {
    const ws = workspace();
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'remember', args: { fact: 'Likes short answers', scope: 'user' } } }] },
      { steps: [{ text: 'ok' }] },
      { steps: [{ toolCall: { name: 'remember', args: { fact: 'Uses pnpm', scope: 'user' } } }] },
      { steps: [{ text: 'ok' }] },
    );
    expect((await rig.keen(ws, ['run', '--yolo', 'remember'])).code).toBe(0);
    expect((await rig.keen(ws, ['run', '--allowed-tools', 'remember', 'remember'])).code).toBe(0);
    expect(fs.readFileSync(path.join(ws.home, 'memory.md'), 'utf8')).toBe('- Likes short answers\n- Uses pnpm\n');
  });
});
