import type { PermissionRequest } from '../types.js';
import { protectedSegment } from './protected-paths.js';
import { accessOf, bashCommandOf, isInside, posixRel } from './request.js';

/**
 * The rule a "for this session" answer remembers: the exact command for bash; the path for a file
 * outside the workspace or a protected one (so the answer covers that file only); else the tool.
 *
 * A file of its own, without the rule parser and its glob matcher: the REPL's permission prompt
 * names this rule, and the prompt's module loads before the REPL takes keys.
 */
export function ruleFor(request: PermissionRequest): string {
  if (request.tool === 'bash') return `bash(${bashCommandOf(request)})`;
  if (request.tool === 'web_fetch' && request.domain) return `web_fetch(domain:${request.domain})`;
  const p = request.paths?.length === 1 ? request.paths[0] : undefined;
  const root = request.cwd;
  if (!p || !root || accessOf(request) === 'exec') return request.tool;
  if (!isInside(root, p)) return `${request.tool}(${p.split('\\').join('/')})`;
  if (accessOf(request) === 'write' && protectedSegment(p, [root])) return `${request.tool}(${posixRel(root, p)})`;
  return request.tool;
}
