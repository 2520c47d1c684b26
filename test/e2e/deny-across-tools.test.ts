/**
 * A file the path rules keep from read_file does not leave through grep, glob or list_dir: a
 * spawned `keen run` with `read_file(.env)` and `read_file(secrets/**)` denied in the user's
 * config, the fake model searching the whole workspace; the results the next request carries name
 * neither file (nor a symlink to one) and hold none of their content.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

describe('deny rules of read_file hold for the searching tools', () => {
  it('grep, glob and list_dir leave out .env, secrets/** and a link to them', async () => {
    const ws = workspace({
      '.env': 'API_TOKEN=hunter2-dotenv\n',
      'secrets/a.txt': 'hunter2-secret-file\n',
      'src/app.ts': 'const hunter2 = "public";\n',
    });
    fs.symlinkSync('.env', path.join(ws.cwd, 'innocent.txt'));
    fs.symlinkSync('secrets', path.join(ws.cwd, 'box'));
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ permissions: { deny: ['read_file(.env)', 'read_file(secrets/**)'] } }));
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'grep', args: { pattern: 'hunter2' } } },
          { toolCall: { name: 'grep', args: { pattern: 'hunter2', files_only: true } } },
          { toolCall: { name: 'grep', args: { pattern: 'hunter2', path: 'box' } } },
          { toolCall: { name: 'glob', args: { pattern: '**/*' } } },
          { toolCall: { name: 'list_dir', args: {} } },
          { toolCall: { name: 'list_dir', args: { path: 'box' } } },
        ],
      },
      { steps: [{ text: 'done' }] },
    );

    const r = await rig.keen(ws, ['run', 'search everything']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[from + 1]);
    expect(results).toHaveLength(6);
    const [grep, grepFiles, grepLink, glob, list, listLink] = results;
    for (const res of results) {
      expect(res.text).not.toContain('dotenv');
      expect(res.text).not.toContain('hunter2-secret');
      expect(res.text).not.toMatch(/\.env\b/);
      expect(res.text).not.toContain('a.txt');
    }
    expect(grep.text.split('\n')[0]).toBe('src/app.ts:1:const hunter2 = "public";');
    expect(grepFiles.text.split('\n')[0]).toBe('src/app.ts');
    // A search through a link to the denied folder is refused: rules see its real path.
    expect(grepLink.isError).toBe(true);
    expect(grepLink.text).toContain('read_file(secrets/**)');
    expect(glob.text.split('\n')[0]).toBe('src/app.ts');
    expect(glob.text).not.toContain('secrets');
    expect(list.text).not.toContain('secrets');
    expect(list.text).not.toContain('innocent.txt');
    expect(list.text).not.toContain('box');
    expect(list.text.split('\n')[0]).toBe('src/');
    expect(list.text).toContain('left out by the permission rules');
    // list_dir of the link is refused outright: its real path is the denied folder.
    expect(listLink.isError).toBe(true);
    expect(listLink.text).toContain('read_file(secrets/**)');
  });
});
