import { errorText } from '../errors.js';
import { resolveWritePath, workspaceRoots } from '../tools/fs-guard.js';
import { FILE_WRITE_TOOLS } from '../tools/permissions/request.js';
import type { ToolCall, ToolMessage } from '../core/message.js';
import type { ToolContext, ToolRegistry } from '../tools/types.js';
import { scanChanges, scanWorkspace } from './workspace-scan.js';
import type { FileCheckpoints } from './file-checkpoints.js';

function pathArg(raw: string): string | undefined {
  try {
    const v = JSON.parse(raw) as { path?: unknown };
    return typeof v?.path === 'string' ? v.path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A bash call between two workspace scans: files it created, changed or removed are kept for
 * undo (changed and removed ones only when the before-scan held their bytes: small enough and
 * within the scan's budget), and files already kept this turn get their new hash.
 */
async function executeBash(inner: ToolRegistry, checkpoints: FileCheckpoints, call: ToolCall, ctx: ToolContext): Promise<ToolMessage> {
  const scan = () => scanWorkspace(ctx.cwd, ctx.signal, (abs) => !checkpoints.has(abs)).catch(() => undefined);
  const before = await scan();
  const message = await inner.execute(call, ctx);
  if (!before) return message;
  const after = await scanWorkspace(ctx.cwd, ctx.signal, () => false).catch(() => undefined);
  if (!after) return message;
  for (const change of scanChanges(before, after)) {
    try {
      if (!checkpoints.has(change.path)) {
        if (change.before && !change.before.content) continue; // too big to have kept: not undoable
        await checkpoints.keep(change.path, change.before ? { data: change.before.content!, mode: change.before.mode } : null, [ctx.cwd]);
      }
      await checkpoints.after(change.path);
    } catch {
      // A failed checkpoint must not fail the command that already ran.
    }
  }
  return message;
}

/**
 * `inner` with file checkpoints: before write_file or edit_file runs, the target's current state
 * is kept (durably) unless this turn kept it already; after a successful change, its new hash.
 * Calls that fail before touching the file leave an entry that an undo finds unchanged.
 */
export function withCheckpoints(inner: ToolRegistry, checkpoints: FileCheckpoints): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx) {
      if (call.name === 'bash' && checkpoints.active) return executeBash(inner, checkpoints, call, ctx);
      const p = FILE_WRITE_TOOLS.has(call.name) ? pathArg(call.args) : undefined;
      const real =
        p === undefined
          ? undefined
          : await resolveWritePath(ctx.cwd, p, workspaceRoots(ctx)).then(
              (r) => r.real,
              () => undefined,
            );
      if (real) {
        try {
          await checkpoints.before(real, workspaceRoots(ctx));
        } catch (err) {
          const content = `Refusing to change ${p}: its previous content could not be kept for undo (${errorText(err)}).`;
          return { role: 'tool', tool_call_id: call.id, name: call.name, content, is_error: true };
        }
      }
      const message = await inner.execute(call, ctx);
      if (real && !message.is_error) await checkpoints.after(real);
      return message;
    },
  };
}
