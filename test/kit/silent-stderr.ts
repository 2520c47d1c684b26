/**
 * An SDK that must stay off the terminal (anything it writes tears into the Ink screen): what it
 * writes to process.stderr, warns through process.emitWarning or logs with console.warn/error is
 * caught during each test, and the test fails if anything came.
 */
import { afterEach, beforeEach, expect, vi } from 'vitest';

/** Call at the top of a test file, before the hooks that start its fakes, so their closing is watched too. */
export function expectSilentStderr(): void {
  let stderr: string[] = [];
  beforeEach(() => {
    stderr = [];
    const capture = (...args: unknown[]) => {
      stderr.push(args.map(String).join(' '));
      return true;
    };
    vi.spyOn(process.stderr, 'write').mockImplementation(capture as never);
    vi.spyOn(process, 'emitWarning').mockImplementation(capture as never);
    vi.spyOn(console, 'warn').mockImplementation(capture);
    vi.spyOn(console, 'error').mockImplementation(capture);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    expect(stderr).toEqual([]);
  });
}
