import { errorText } from '../errors.js';
import { resolveWritePath, workspaceRoots } from '../tools/fs-guard.js';
import { FILE_WRITE_TOOLS } from '../tools/permissions/request.js';
import type { ToolRegistry } from '../tools/types.js';
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
 * `inner` with file checkpoints: before write_file or edit_file runs, the target's current state
 * is kept (durably) unless this turn kept it already; after a successful change, its new hash.
 * Calls that fail before touching the file leave an entry that an undo finds unchanged.
 */
export function withCheckpoints(inner: ToolRegistry, checkpoints: FileCheckpoints): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    async execute(call, ctx) {
      const p = FILE_WRITE_TOOLS.has(call.name) ? pathArg(call.args) : undefined;
      const real = p === undefined ? undefined : await resolveWritePath(ctx.cwd, p, workspaceRoots(ctx)).then((r) => r.real, () => undefined);
      if (real) {
        try {
          await checkpoints.before(real);
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
