import { mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { ToolMessage } from '../../src/core/message.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { createHeadlessGate } from '../../src/tools/permissions/index.js';
import type { PermissionGate, ToolRegistry } from '../../src/tools/types.js';

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh temp workspace (real path) holding `files`; removed after each test. */
export async function workspace(files: Record<string, string | Buffer> = {}): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'keen-tools-')));
  made.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return dir;
}

export const yolo: PermissionGate = createHeadlessGate({ yolo: true, allow: [] });

let nextId = 0;

/** Execute one call through the default registry, as the loop would. */
export function call(
  cwd: string,
  name: string,
  args: unknown,
  options: { signal?: AbortSignal; permissions?: PermissionGate; registry?: ToolRegistry } = {},
): Promise<ToolMessage> {
  const registry = options.registry ?? createDefaultRegistry();
  return registry.execute(
    { id: `call_${++nextId}`, name, args: typeof args === 'string' ? args : JSON.stringify(args) },
    { cwd, signal: options.signal ?? new AbortController().signal, permissions: options.permissions ?? yolo },
  );
}
