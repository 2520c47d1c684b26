/**
 * The islands of dist/ (scripts/build.mjs `ISLANDS`): packages only some runs use, each bundled
 * into a script of its own that the launcher compiles when the bundle first requires one of them
 * (src/launch/islands.ts). Every specifier the build's table names must come out of its island
 * with the names Keen uses; the REPL, whose Ink, React and highlighter live in one, draws a
 * highlighted code block from it. Needs `npm run build` first.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { islandRequire } from '../../src/launch/islands.js';
import { useTmuxRig } from '../repl/tmux.js';
import { assertBuilt } from './cli-fixtures.js';

const DIST = path.resolve(import.meta.dirname, '../../dist');

/** What Keen takes from each specifier (a missing one is a broken island). */
const USED: Record<string, string[]> = {
  openai: ['OpenAI'],
  '@aws-sdk/client-bedrock-runtime': ['BedrockRuntimeClient', 'ConverseStreamCommand'],
  '@smithy/node-http-handler': ['NodeHttpHandler', 'NodeHttp2Handler'],
  ink: ['render', 'Box', 'Text', 'useInput'],
  react: ['useState', 'useEffect'],
  'react/jsx-runtime': ['jsx', 'jsxs', 'Fragment'],
  'yoga-layout': ['ready'],
  'keen-island:src/repl/markdown/lowlight-common.ts': ['createLowlight', 'common'],
};

/** Compiles one of dist/'s scripts as the launcher does (no cache) and returns its exports. */
function runScript(file: string): unknown {
  const fn = new vm.Script(fs.readFileSync(file, 'latin1'), { filename: file }).runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} };
  fn(module.exports, createRequire(file), module, file, path.dirname(file), pathToFileURL(file).href);
  return module.exports;
}

describe('the islands of the bundle', () => {
  assertBuilt();

  it('serves every package the bundle requires from its island, with the names Keen uses, each island compiled once', async () => {
    const { ISLAND_TABLE } = (await import(pathToFileURL(path.join(DIST, 'main.js')).href)) as { ISLAND_TABLE: Record<string, string> };
    expect(Object.keys(ISLAND_TABLE).sort()).toEqual(Object.keys(USED).sort());
    const loads: string[] = [];
    const base = createRequire(path.join(DIST, 'app.cjs'));
    const req = islandRequire(base, ISLAND_TABLE, (island) => {
      loads.push(island);
      return runScript(path.join(DIST, `${island}.cjs`));
    });
    for (const [spec, names] of Object.entries(USED)) {
      const mod = req(spec) as Record<string, unknown>;
      for (const name of names) expect(mod[name], `${spec} → ${name}`).toBeDefined();
    }
    expect(loads.sort()).toEqual([...new Set(Object.values(ISLAND_TABLE))].sort());
    // Anything else is Node's own require.
    expect(req('node:path')).toBe(path);
  });
});

describe('the REPL draws from its island', () => {
  const rig = useTmuxRig();

  it('highlights a code block with the island’s highlighter', async () => {
    rig.fake.setResponder(() => ({ steps: [{ text: 'Here:\n\n```ts\nconst answer = 42;\n```\n' }] }));
    const t = rig.start();
    await t.waitFor('Type a message');
    t.type('show me code');
    await t.waitFor('const answer = 42;');
    // A keyword and a number in their own colours: the grammar ran (plain text has no SGR there).
    const line =
      t
        .capture(true)
        .split('\n')
        .find((l) => l.includes('answer')) ?? '';
    expect(line).toMatch(/\x1b\[[0-9;]*m\s*const/);
    expect(line).toMatch(/\x1b\[[0-9;]*m42/);
  });
});
