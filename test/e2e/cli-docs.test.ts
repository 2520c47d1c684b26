/**
 * The documentation a user has (issue 26): docs/cli.md lists every command and flag commander
 * defines (read from `keen completion bash`, which is generated from the definitions), and every
 * `docs/*.md` that Keen's messages, the config schema or the README point to is in the package.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();
const root = path.resolve(import.meta.dirname, '../..');
const cliDoc = fs.readFileSync(path.join(root, 'docs/cli.md'), 'utf8');

/** Each command of the bash completion script with its flags (`run` → [`--print`, `-p`, …]). */
function commandsOf(script: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of script.matchAll(/^ {4}([a-z]+)\) opts='([^']*)'/gm)) out.set(m[1], m[2].split(' ').filter(Boolean));
  const top = /^ {4}\*\) opts='([^']*)'/m.exec(script);
  out.set('', top ? top[1].split(' ') : []);
  return out;
}

/** `flag` appears in the doc as a flag (`--add-dir`, `-C,`), not as the start of a longer one. */
const mentions = (doc: string, flag: string) => new RegExp(`(^|[\\s\`(|[])${flag.replace(/[-]/g, '\\-')}(?![\\w-])`, 'm').test(doc);

describe('docs/cli.md lists every command and flag', () => {
  it('every command (and alias) has a row of the commands table, and every flag of each is described', async () => {
    const r = await rig.keen(workspace(), ['completion', 'bash']);
    expect(r.code).toBe(0);
    const commands = commandsOf(r.stdout);
    expect([...commands.keys()]).toEqual(expect.arrayContaining(['run', 'exec', 'init', 'undo', 'mcp', 'compact', 'context']));
    const rows = cliDoc.split('\n').filter((l) => l.startsWith('| `keen'));
    const missingCommands = [...commands.keys()].filter((c) => c && !rows.some((row) => new RegExp(`^\\| \`keen ${c}\\b`).test(row) || row.includes(`\`keen ${c}`)));
    expect(missingCommands).toEqual([]);
    const missingFlags = [...new Set([...commands.values()].flat())].filter((f) => !mentions(cliDoc, f));
    expect(missingFlags).toEqual([]);
  });
});

describe('what messages point to is in the package', () => {
  it('`npm pack` ships every docs/*.md the bundle, config.schema.json, the README and the docs refer to', () => {
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const files = new Set<string>(packed[0].files.map((f: { path: string }) => f.path));
    const shipped = [...files].filter((f) => /^(dist\/.*\.(c?js|mjs)|config\.schema\.json|README\.md|docs\/.*\.md)$/.test(f));
    expect(shipped).toContain('dist/app.cjs');
    const wanted = new Set<string>();
    for (const file of shipped) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const m of text.matchAll(/\bdocs\/[a-z-]+\.md\b/g)) wanted.add(m[0]);
      if (file.startsWith('docs/')) for (const m of text.matchAll(/\]\(([a-z-]+\.md)[#)]/g)) wanted.add(`docs/${m[1]}`);
    }
    expect(wanted.size).toBeGreaterThan(0);
    expect([...wanted].filter((doc) => !files.has(doc))).toEqual([]);
  });
});
