/**
 * An error meant for the user: its message is one line that names the file, flag, id or variable
 * at fault and says what to do. The CLI prints `keen: <message>` and exits non-zero, never a stack.
 */
export class KeenError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'KeenError';
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message.replace(/\s+/g, ' ').trim();
  return String(err);
}
