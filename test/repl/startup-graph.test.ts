/**
 * What loads before the REPL's prompt takes keys: repl-entry.ts with run-repl.ts and, through one dynamic
 * import, interactive.tsx — each with everything it imports statically. The permission engine
 * (rules, glob matching), slash commands, turns and the session itself load with the session
 * (runtime-parts.ts, open-session.ts), never on that path: each of them delays the first key the
 * user typed at the painted frame (docs/performance.md). The graph is esbuild's, as the build sees it.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function metafile(entry: string): Promise<Metafile> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    jsx: 'automatic',
    logLevel: 'silent',
    outdir: 'out',
  });
  return result.metafile;
}

/** Source files and packages reachable from `entry` through static imports only. */
function staticClosure(meta: Metafile, entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of meta.inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import') continue;
      if (imp.external) seen.add(`package:${imp.path}`);
      else queue.push(imp.path);
    }
  }
  return seen;
}

describe('the way to the prompt taking keys', () => {
  it('loads Ink and the prompt, and none of the permission engine, the commands, turns or the session', async () => {
    const entries = ['src/cli/repl-entry.ts', 'src/repl/run-repl.ts', 'src/repl/interactive.tsx'];
    const loaded = new Set<string>();
    for (const entry of entries) for (const file of staticClosure(await metafile(entry), entry)) loaded.add(file);

    expect(loaded).toContain('package:ink');
    expect(loaded).toContain('src/repl/components/prompt-input.tsx');
    expect(loaded).toContain('src/repl/components/permission-prompt.tsx');
    for (const later of [
      'package:picomatch',
      'package:diff',
      'src/tools/permissions/rules.ts',
      'src/tools/permissions/gates.ts',
      'src/tools/permissions/decide.ts',
      'src/repl/repl-gate.ts',
      'src/repl/runtime-parts.ts',
      'src/repl/input-dispatch.ts',
      'src/repl/commands.ts',
      'src/repl/turn-runner.ts',
      'src/agent/session-controller.ts',
      'src/agent/open-session.ts',
    ]) {
      expect(loaded, later).not.toContain(later);
    }
  }, 30_000);
});
