import { describe, expect, it } from 'vitest';
import { KeenError } from '../../src/errors.js';
import { assertSessionId, isValidSessionId, newSessionId, projectDirName, transcriptPath } from '../../src/transcript/paths.js';

describe('session paths', () => {
  it('names a project directory by its readable path plus a short hash', () => {
    expect(projectDirName('/home/ann/src/my app')).toMatch(/^home-ann-src-my-app-[0-9a-f]{8}$/);
    expect(projectDirName('/home/ann/src/my app')).toBe(projectDirName('/home/ann/src/my app/'));
    expect(projectDirName('/a/b')).not.toBe(projectDirName('/a-b'));
    expect(projectDirName('/')).toMatch(/^[0-9a-f]{8}$/);
  });

  it('keeps the end of a very long path', () => {
    const name = projectDirName(`/${'deep/'.repeat(40)}project-x`);
    expect(name.length).toBeLessThanOrEqual(48 + 9);
    expect(name).toMatch(/-project-x-[0-9a-f]{8}$/);
  });

  it('lays out $KEEN_HOME/sessions/<project>/<id>/transcript_events.jsonl', () => {
    const id = '20250301-142233-k3f9qz';
    expect(transcriptPath('/h', '/work/app', id)).toBe(`/h/sessions/${projectDirName('/work/app')}/${id}/transcript_events.jsonl`);
  });
});

describe('session ids', () => {
  it('are time-sortable, URL-safe and valid', () => {
    const a = newSessionId(new Date('2025-03-01T14:22:33.999Z'));
    const b = newSessionId(new Date('2025-03-01T14:22:34.000Z'));
    expect(a).toMatch(/^20250301-142233-[0-9a-z]{6}$/);
    expect(a < b).toBe(true);
    expect(encodeURIComponent(a)).toBe(a);
    expect(isValidSessionId(a)).toBe(true);
    expect(new Set(Array.from({ length: 200 }, () => newSessionId())).size).toBe(200);
  });

  it('rejects anything else with one line that says how to list sessions', () => {
    for (const bad of ['', '..', '../20250301-142233-k3f9qz', '20250301-142233-K3F9QZ', '20250301-142233-k3f9q', 'x'.repeat(500)]) {
      expect(isValidSessionId(bad)).toBe(false);
      expect(() => assertSessionId(bad)).toThrow(KeenError);
    }
    expect(() => assertSessionId('nope')).toThrow('"nope" is not a session id (they look like 20250301-142233-k3f9qz); run `keen sessions` to list sessions');
  });
});
