import * as z from 'zod';
import { once } from '../core/lazy.js';

/**
 * What Keen kept of one turn's file changes (`checkpoints/<turn_seq>/manifest.json` in the session
 * directory). `before` is the file's content before the turn first changed it (a blob next to the
 * manifest) or null when the file did not exist; `after` is the SHA-256 of what Keen left (null:
 * Keen removed it; absent: the change was never confirmed, e.g. a crash mid-write).
 */
export const manifestSchema = once(() => {
  const fileEntrySchema = z.object({
    path: z.string(),
    before: z.object({ blob: z.string(), mode: z.number().int() }).nullable(),
    after: z.string().nullable().optional(),
  });

  return z.object({
    turn_seq: z.number().int().positive(),
    files: z.array(fileEntrySchema),
    /** The workspace roots of the turn (cwd, `--add-dir` folders): an undo writes only inside them. */
    roots: z.array(z.string()).optional(),
    /** Set when the turn's changes were undone (the transcript holds the matching `undo` record). */
    undone: z.boolean().optional(),
  });
});

export type Manifest = z.infer<ReturnType<typeof manifestSchema>>;
export type FileEntry = Manifest['files'][number];
