/**
 * Tests and the machine's sandbox. On a machine without bubblewrap the tests that prove the
 * sandbox skip, naming why, and the other tests ignore the "no sandbox" warning and note that such
 * a machine adds to every bash run. With KEEN_REQUIRE_SANDBOX=1 (`.ci/run` sets it after installing
 * bubblewrap) a missing sandbox fails those tests instead.
 */
import { describe, it } from 'vitest';
import { findSandbox } from '../../src/tools/sandbox/detect.js';

/** Why this machine has no sandbox for bash, or undefined when it has one. */
export const NO_SANDBOX: string | undefined = findSandbox(process.platform, process.env).missing;

const skipReason = NO_SANDBOX && process.env.KEEN_REQUIRE_SANDBOX !== '1' ? NO_SANDBOX : undefined;
const named = (name: string) => (skipReason ? `${name} [skipped: ${skipReason}; KEEN_REQUIRE_SANDBOX=1 fails instead]` : name);

/** A `describe` of tests that prove the sandbox itself. */
export function describeSandbox(name: string, fn: () => void): void {
  describe.skipIf(skipReason !== undefined)(named(name), fn);
}

/** An `it` that proves the sandbox itself (same rule as {@link describeSandbox}). */
export function itSandbox(name: string, fn: () => Promise<void> | void, timeout?: number): void {
  it.skipIf(skipReason !== undefined)(named(name), fn, timeout);
}

const WARNING = /^keen: warning: no sandbox for bash: /;
const NOTE = /\n\[no sandbox: [^\]]*\]$/;

/** Whether a stderr line is the machine's "no sandbox" warning (only on a machine without one). */
export function isNoSandboxWarning(line: string): boolean {
  return NO_SANDBOX !== undefined && WARNING.test(line);
}

/** A bash result without the machine's "[no sandbox: …]" note (only on a machine without one). */
export function withoutNoSandboxNote(content: string): string {
  return NO_SANDBOX === undefined ? content : content.replace(NOTE, '');
}
