import { describe, expect, it } from 'vitest';
import { LibraryWarnings } from '../../src/providers/kit/library-warnings.js';

describe('LibraryWarnings', () => {
  it("a library's console.warn during its call becomes one line, once per text", () => {
    const lines: string[] = [];
    const warnings = new LibraryWarnings('Anthropic', (l) => lines.push(l));
    const before = console.warn;
    for (let i = 0; i < 3; i++) {
      expect(warnings.during(() => (console.warn("The model 'm' is deprecated\nPlease migrate."), i))).toBe(i);
    }
    warnings.during(() => console.warn('Another %s', 'thing'));
    expect(lines).toEqual(["Anthropic: The model 'm' is deprecated Please migrate.", 'Anthropic: Another thing']);
    expect(console.warn).toBe(before);
  });

  it('console is itself again when the call throws, and without a sink nothing is shown', () => {
    const before = console.warn;
    const warnings = new LibraryWarnings('Anthropic', undefined);
    expect(() =>
      warnings.during(() => {
        console.warn('dropped');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(console.warn).toBe(before);
  });
});
