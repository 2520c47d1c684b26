import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverCommands, expandCommand } from '../../src/project/custom-commands.js';
import { parseFrontMatter } from '../../src/project/front-matter.js';
import { appendMemory, memoryPaths } from '../../src/project/memory.js';
import { discoverSkills } from '../../src/project/skills.js';
import { discoverAgents } from '../../src/project/subagents.js';
import { tempDir } from '../kit/temp-dir.js';

function tree(files: Record<string, string>): string {
  const root = tempDir('keen-ctx-');
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

describe('front matter', () => {
  it('splits YAML and body, and has none without a leading fence', () => {
    expect(parseFrontMatter('---\nname: a\ntools:\n  - read_file\n---\nBody\n')).toEqual({ data: { name: 'a', tools: ['read_file'] }, body: 'Body\n' });
    expect(parseFrontMatter('Just text\n---\nx: 1\n---\n')).toEqual({ data: {}, body: 'Just text\n---\nx: 1\n---\n' });
  });
  it('names what is wrong', () => {
    expect(() => parseFrontMatter('---\nname: [x\n---\nbody')).toThrow(/not valid YAML/);
    expect(() => parseFrontMatter('---\nname: x\nbody')).toThrow(/no closing ---/);
    expect(() => parseFrontMatter('---\n- a\n- b\n---\nbody')).toThrow(/not a YAML mapping/);
  });
});

describe('skills', () => {
  it('first name wins across folders; a skill without a description is skipped with a warning naming it', () => {
    const a = tree({ 'x/SKILL.md': '---\nname: x\ndescription: near\n---\nA', 'y/SKILL.md': '---\nname: y\n---\nB' });
    const b = tree({ 'x/SKILL.md': '---\nname: x\ndescription: far\n---\nC', 'z/SKILL.md': '---\ndescription: from folder name\n---\nD' });
    const { skills, warnings } = discoverSkills([a, b]);
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ['x', 'near'],
      ['z', 'from folder name'],
    ]);
    expect(warnings).toEqual([`skipped skill ${path.join(a, 'y/SKILL.md')}: front matter needs a description`]);
  });
});

describe('custom commands', () => {
  it('fills $ARGUMENTS and positionals, and appends arguments to a body without placeholders', () => {
    expect(expandCommand('Fix issue #$1 in $2. ($ARGUMENTS)', '42 "the parser"')).toBe('Fix issue #42 in the parser. (42 "the parser")');
    expect(expandCommand('Missing: [$3]', 'a')).toBe('Missing: []');
    expect(expandCommand('Plain body', 'extra words')).toBe('Plain body\n\nextra words');
    expect(expandCommand('Plain body', '')).toBe('Plain body');
  });
  it('reads description from optional front matter; a malformed file warns and the others load', () => {
    const d = tree({ 'a.md': '---\ndescription: Does A\n---\nbody A', 'b.md': 'body B', 'c.md': '---\nx: [\n---\n' });
    const { commands, warnings } = discoverCommands([d]);
    expect(commands.map((c) => [c.name, c.description, c.body])).toEqual([
      ['a', 'Does A', 'body A'],
      ['b', undefined, 'body B'],
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path.join(d, 'c.md'));
  });
});

describe('agent definitions', () => {
  it('takes tools as a list or a comma string; model inherit means the parent', () => {
    const d = tree({
      'a.md': '---\nname: a\ndescription: A\ntools: [read_file, grep]\nmodel: inherit\n---\nPrompt A',
      'b.md': '---\nname: b\ndescription: B\ntools: read_file, bash\nmodel: fast\n---\nPrompt B',
    });
    const { agents } = discoverAgents([d]);
    expect(agents.map((x) => [x.name, x.tools, x.model, x.prompt])).toEqual([
      ['a', ['read_file', 'grep'], undefined, 'Prompt A'],
      ['b', ['read_file', 'bash'], 'fast', 'Prompt B'],
    ]);
  });
});

describe('memory', () => {
  it('appends one bullet per fact, creating the file; a newline is added to a file that lacks one', async () => {
    const root = tree({ '.git/HEAD': '', 'memory.md': '- old' });
    const paths = { ...memoryPaths(root, root), user: path.join(root, 'memory.md') };
    await appendMemory(paths, 'project', '  multi\nline  fact ');
    await appendMemory(paths, 'user', '- new');
    expect(fs.readFileSync(path.join(root, '.keen/memory.md'), 'utf8')).toBe('- multi line fact\n');
    expect(fs.readFileSync(path.join(root, 'memory.md'), 'utf8')).toBe('- old\n- new\n');
    await expect(appendMemory(paths, 'project', '   ')).rejects.toThrow(/empty/);
  });
  it('refuses a .keen folder that is a symlink out of the repository', async () => {
    const outside = tree({});
    const root = tree({ '.git/HEAD': '' });
    fs.symlinkSync(outside, path.join(root, '.keen'));
    await expect(appendMemory(memoryPaths(root, root), 'project', 'x')).rejects.toThrow(/symlink/);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});
