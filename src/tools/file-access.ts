/**
 * The editor seam of the file and bash tools: a registry layer that hands an editor's access to
 * every call's context, and the helpers the tools use to pick the editor or the disk. The
 * interfaces are types.ts `FileAccess` and `TerminalAccess`.
 */
import { errorText } from '../errors.js';
import { isInside, realPath, workspaceRoots } from './fs-guard.js';
import { ToolError } from './registry.js';
import type { EditorAccess, FileAccess, ToolContext, ToolRegistry } from './types.js';

/** `inner` whose tools see `access` in their context (`ctx.files`, `ctx.terminal`). */
export function withEditorAccess(inner: ToolRegistry, access: EditorAccess): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    execute: (call, ctx) => inner.execute(call, { ...ctx, ...access }),
  };
}

async function insideRoots(ctx: Pick<ToolContext, 'cwd' | 'permissions'>, real: string): Promise<boolean> {
  for (const root of workspaceRoots(ctx)) if (isInside(root, real) || isInside(await realPath(root), real)) return true;
  return false;
}

/** The editor's reader for `real`, when it has one and the file is inside the workspace roots. */
export async function editorReader(ctx: Pick<ToolContext, 'cwd' | 'permissions' | 'files'>, real: string): Promise<FileAccess['readText']> {
  const read = ctx.files?.readText;
  return read && (await insideRoots(ctx, real)) ? read : undefined;
}

/** The editor's writer (writes are inside the roots already: resolveWritePath). */
export function editorWriter(ctx: Pick<ToolContext, 'files'>): FileAccess['writeText'] {
  return ctx.files?.writeText;
}

/** A failed editor read or write as the tool's one line. */
export function editorError(err: unknown, verb: 'read' | 'write', shown: string): ToolError {
  return new ToolError(`the editor could not ${verb} ${shown}: ${errorText(err)}`);
}
