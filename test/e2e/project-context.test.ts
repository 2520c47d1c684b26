/**
 * What the system prompt carries, end to end: the real bundle spawned against the loopback
 * Anthropic fake. Instructions (global first), memory and the remember tool, skills and the skill
 * tool, `/<skill>` and custom commands headless, plan mode, keen init.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig, userTexts } from './cli-fixtures.js';
import { systemText, toolNames } from './context-fixtures.js';
import type { Workspace } from '../kit/temp-dir.js';
import { itSandbox } from '../kit/sandbox.js';

const { rig, workspace } = useCliRig();

function writeHome(ws: Workspace, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(ws.home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('keen run: instructions, memory and skills in the system prompt', () => {
  it('carries the global then project instruction files in order, both memory files and the skills list without bodies; a malformed SKILL.md warns once', async () => {
    const ws = workspace({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'AGENTS.md': 'ROOT-AGENTS: run npm test before committing.\n',
      'pkg/CLAUDE.md': 'PKG-CLAUDE: this package is ESM only.\n',
      '.keen/memory.md': '- PROJECT-MEMORY: the staging db is read-only\n',
      '.keen/skills/lint-fix/SKILL.md': skill('lint-fix', 'Fix lint errors the project way', 'LINT-BODY-SECRET-STEPS'),
      '.claude/skills/deploy/SKILL.md': skill('deploy', 'Deploy to staging', 'DEPLOY-BODY'),
      '.agents/skills/broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\nBROKEN-BODY\n',
    });
    writeHome(ws, {
      'AGENTS.md': 'GLOBAL-AGENTS: answer in British English.\n',
      'memory.md': '- USER-MEMORY: prefers pnpm\n',
      // Same name as a project skill: the project one (nearer) wins.
      'skills/deploy/SKILL.md': skill('deploy', 'USER-DEPLOY-DESCRIPTION', 'USER-DEPLOY-BODY'),
    });
    fs.mkdirSync(path.join(ws.cwd, 'pkg/src'), { recursive: true });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });

    const r = await rig.keen({ ...ws, cwd: path.join(ws.cwd, 'pkg/src') }, ['run', 'hello']);

    expect(r.code).toBe(0);
    const warnings = errorLines(r.stderr);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^keen: warning: skipped skill .*\.agents\/skills\/broken\/SKILL\.md: front matter is not valid YAML/);
    const system = systemText(rig.since(from)[0]);
    const order = ['GLOBAL-AGENTS', 'ROOT-AGENTS', 'PKG-CLAUDE', 'USER-MEMORY', 'PROJECT-MEMORY', 'lint-fix: Fix lint errors the project way', 'deploy: Deploy to staging'];
    const positions = order.map((marker) => system.indexOf(marker));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(system).not.toContain('LINT-BODY-SECRET-STEPS');
    expect(system).not.toContain('DEPLOY-BODY');
    expect(system).not.toContain('USER-DEPLOY-DESCRIPTION');
    expect(system).not.toContain('broken');
    expect(toolNames(rig.since(from)[0])).toEqual(expect.arrayContaining(['skill', 'remember', 'task']));
  });

  it('caps a memory file at 8 KiB with a note', async () => {
    const ws = workspace({ '.keen/memory.md': `- START\n${'- filler fact\n'.repeat(1000)}- END-OF-MEMORY\n` });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    const system = systemText(rig.since(from)[0]);
    expect(system).toContain('- START');
    expect(system).not.toContain('END-OF-MEMORY');
    expect(system).toContain('[truncated to 8192 bytes]');
  });

  it('a skill call returns the body, the folder and its files', async () => {
    const ws = workspace({
      '.keen/skills/release/SKILL.md': skill('release', 'Cut a release', 'Step 1: run scripts/bump.sh. RELEASE-BODY'),
      '.keen/skills/release/scripts/bump.sh': 'echo bump\n',
    });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'skill', args: { name: 'release' } } }] }, { steps: [{ text: 'Loaded.' }] });
    const r = await rig.keen(ws, ['run', 'cut a release']);
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.since(from)[1]);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('RELEASE-BODY');
    expect(result.text).toContain(path.join(fs.realpathSync(ws.cwd), '.keen/skills/release').replace(fs.realpathSync(ws.cwd), ''));
    expect(result.text).toContain('- scripts/bump.sh');
    expect(result.text).not.toContain('name: release');
  });

  it('/<skill> args runs a turn that loads the skill with the arguments', async () => {
    const ws = workspace({ '.keen/skills/release/SKILL.md': skill('release', 'Cut a release', 'RELEASE-STEPS') });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Releasing.' }] });
    const r = await rig.keen(ws, ['run', '/release v2.1.0']);
    expect(r.code).toBe(0);
    const [text] = userTexts(rig.since(from)[0]);
    expect(text).toContain('RELEASE-STEPS');
    expect(text).toContain('Arguments: v2.1.0');
    expect(text).not.toContain('description: Cut a release');
  });
});

describe('keen run: memory', () => {
  it('a project remember lands in the project file without asking (no --yolo), a user one with --yolo, both in the next session’s system prompt', async () => {
    const ws = workspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'sub/x.txt': 'x' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'remember', args: { fact: 'The API lives in services/api', scope: 'project' } } }] },
      { steps: [{ text: 'Noted.' }] },
      // The user scope is a write outside the project: it asks (headless: denied without --yolo).
      { steps: [{ toolCall: { name: 'remember', args: { fact: 'Likes short answers', scope: 'user' } } }] },
      { steps: [{ text: 'Noted.' }] },
    );
    const r = await rig.keen({ ...ws, cwd: path.join(ws.cwd, 'sub') }, ['run', 'remember where the API is']);
    expect(r.code).toBe(0);
    expect((await rig.keen({ ...ws, cwd: path.join(ws.cwd, 'sub') }, ['run', '--yolo', 'remember that I like short answers'])).code).toBe(0);
    expect(toolResults(rig.since(from)[1]).map((t) => t.isError)).toEqual([false]);
    expect(toolResults(rig.since(from)[3]).map((t) => t.isError)).toEqual([false]);
    // The repository root (the folder holding .git), not the cwd.
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/memory.md'), 'utf8')).toBe('- The API lives in services/api\n');
    expect(fs.readFileSync(path.join(ws.home, 'memory.md'), 'utf8')).toBe('- Likes short answers\n');

    const next = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    expect((await rig.keen(ws, ['run', 'where is the API?'])).code).toBe(0);
    const system = systemText(rig.since(next)[0]);
    expect(system).toContain('- The API lives in services/api');
    expect(system).toContain('- Likes short answers');
  });

  it('refuses to write project memory through a symlinked .keen/memory.md; the target is untouched', async () => {
    const ws = workspace({ 'victim.txt': 'precious\n' });
    fs.mkdirSync(path.join(ws.cwd, '.keen'));
    const outside = path.join(ws.home, 'outside.txt');
    fs.writeFileSync(outside, 'outside\n');
    fs.symlinkSync(outside, path.join(ws.cwd, '.keen/memory.md'));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'remember', args: { fact: 'pwned', scope: 'project' } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'remember']);
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.since(from)[1]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('symlink');
    expect(fs.readFileSync(outside, 'utf8')).toBe('outside\n');
  });
});

describe('keen run: repository definitions that link to a secret', () => {
  it('an instruction file, a command, an agent and a skill linking out of the project send nothing of the target; each is named once', async () => {
    const ws = workspace({ '.git/HEAD': 'ref: refs/heads/main\n', 'src/ok.md': 'ok\n' });
    const secret = path.join(ws.root, 'id_rsa');
    fs.writeFileSync(secret, '---\nname: leak\ndescription: LEAKED-DESCRIPTION\n---\nPRIVATE-KEY-BODY\n');
    for (const rel of ['AGENTS.md', '.keen/commands/leak.md', '.keen/agents/leak.md', '.keen/skills/leak/SKILL.md']) {
      fs.mkdirSync(path.dirname(path.join(ws.cwd, rel)), { recursive: true });
      fs.symlinkSync(secret, path.join(ws.cwd, rel));
    }
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '/leak now']);
    expect(r.code).toBe(0);
    const sent = JSON.stringify(rig.since(from));
    expect(sent).not.toContain('PRIVATE-KEY-BODY');
    expect(sent).not.toContain('LEAKED-DESCRIPTION');
    expect(userTexts(rig.since(from)[0])).toEqual(['/leak now']);
    expect(errorLines(r.stderr).filter((l) => l.includes('leads outside'))).toHaveLength(4);
  });
});

describe('keen run: custom commands', () => {
  it('/<name> args sends the body without front matter, $ARGUMENTS and $1 filled in; user commands load too', async () => {
    const ws = workspace({ '.keen/commands/review.md': '---\ndescription: Review a file\n---\nReview $1 carefully. All args: $ARGUMENTS.\n' });
    writeHome(ws, { 'commands/standup.md': 'Summarise yesterday.' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Reviewed.' }] }, { steps: [{ text: 'Summary.' }] });
    expect((await rig.keen(ws, ['run', '/review src/a.ts "for bugs"'])).code).toBe(0);
    expect(userTexts(rig.since(from)[0])).toEqual(['Review src/a.ts carefully. All args: src/a.ts "for bugs".']);
    expect((await rig.keen(ws, ['run', '/standup team-x'])).code).toBe(0);
    expect(userTexts(rig.since(from)[1])).toEqual(['Summarise yesterday.\n\nteam-x']);
  });

  it('an unknown /word is sent as typed', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    expect((await rig.keen(ws, ['run', '/usr/bin/env is a path'])).code).toBe(0);
    expect(userTexts(rig.since(from)[0])).toEqual(['/usr/bin/env is a path']);
  });
});

describe('keen run --mode plan', () => {
  itSandbox('says so in the system prompt and refuses writes and mutating bash even with --yolo; reads and read-only bash run', async () => {
    const ws = workspace({ 'notes.md': 'original\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'write_file', args: { path: 'notes.md', content: 'changed' } } },
          { toolCall: { name: 'bash', args: { command: 'touch made-by-bash' } } },
          { toolCall: { name: 'bash', args: { command: 'cat notes.md' } } },
          { toolCall: { name: 'read_file', args: { path: 'notes.md' } } },
        ],
      },
      { steps: [{ text: 'Here is the plan.' }] },
    );
    const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', '--format', 'json', 'change the notes']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'plan', result: 'Here is the plan.' });
    const sent = rig.since(from);
    expect(systemText(sent[0])).toContain('Plan mode is on');
    const results = toolResults(sent[1]);
    expect(results.map((t) => t.isError)).toEqual([true, true, false, false]);
    expect(results[0].text).toMatch(/^Plan mode is on/);
    // bash runs in a read-only sandbox (test/e2e/plan-mode-sandbox.test.ts).
    expect(results[1].text).toContain('Read-only file system');
    expect(results[2].text).toContain('original');
    expect(fs.readFileSync(path.join(ws.cwd, 'notes.md'), 'utf8')).toBe('original\n');
    expect(fs.existsSync(path.join(ws.cwd, 'made-by-bash'))).toBe(false);
  });

  it('build is the default mode in the JSON output and the prompt has no plan section', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--format', 'json', 'hi']);
    expect(JSON.parse(r.stdout).mode).toBe('build');
    expect(systemText(rig.since(from)[0])).not.toContain('Plan mode is on');
  });

  it('rejects an unknown mode with one line', async () => {
    const r = await rig.keen(workspace(), ['run', '--mode', 'yolo', 'hi']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--mode <mode>.*yolo/);
  });
});

describe('keen init', () => {
  it('asks the model to draft AGENTS.md, written through write_file with --yolo', async () => {
    const ws = workspace({ 'package.json': '{"scripts":{"test":"vitest"}}' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'write_file', args: { path: 'AGENTS.md', content: '# Agents\nRun `npm test`.\n' } } }] },
      { steps: [{ text: 'Wrote AGENTS.md.' }] },
    );
    const r = await rig.keen(ws, ['init', '--yolo']);
    expect(r.code).toBe(0);
    expect(userTexts(rig.since(from)[0])[0]).toContain('Draft an AGENTS.md');
    expect(fs.readFileSync(path.join(ws.cwd, 'AGENTS.md'), 'utf8')).toContain('npm test');
  });

  it('without --yolo the write is denied and nothing is created', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'write_file', args: { path: 'AGENTS.md', content: 'x' } } }] }, { steps: [{ text: 'Denied.' }] });
    const r = await rig.keen(ws, ['init']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'AGENTS.md'))).toBe(false);
  });

  it('leaves an existing AGENTS.md alone with one line', async () => {
    const ws = workspace({ 'AGENTS.md': 'mine\n' });
    const from = rig.fake.requests.length;
    const r = await rig.keen(ws, ['init', '--yolo']);
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([`keen: ${path.join(ws.cwd, 'AGENTS.md')} already exists; edit it, or remove it to draft a new one`]);
    expect(rig.since(from)).toHaveLength(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'AGENTS.md'), 'utf8')).toBe('mine\n');
  });
});
