import { describe, expect, it } from 'vitest';
import { REDACTED, redactText, secretValues } from '../../src/transcript/redact.js';

describe('redaction: Keen credentials and known formats, never ordinary values', () => {
  it('keeps paths in variables whose names merely contain KEY or TOKEN', () => {
    const env = { PROJECT_KEY_DIR: '/home/me/app', TOKENIZER_PATH: '/opt/tok/model.bin', KEYBOARD_LAYOUT: 'dvorak-programmer', HOME: '/home/me' };
    expect(secretValues(env)).toEqual([]);
    const text = 'cwd /home/me/app, model /opt/tok/model.bin, layout dvorak-programmer';
    expect(redactText(text, secretValues(env))).toBe(text);
  });

  it("redacts Keen's own credential variables whatever their format, and conventional credential names", () => {
    const env = { ANTHROPIC_API_KEY: 'plainvalue123', NPM_TOKEN: 'npm_abcdefghijklmnop', DB_PASSWORD: 'hunter2hunter2', CACHE_TOKEN: '/var/cache/tok' };
    const secrets = secretValues(env);
    expect(secrets.sort()).toEqual(['hunter2hunter2', 'npm_abcdefghijklmnop', 'plainvalue123']);
    expect(redactText('k=plainvalue123 n=npm_abcdefghijklmnop p=hunter2hunter2 c=/var/cache/tok', secrets)).toBe(`k=${REDACTED} n=${REDACTED} p=${REDACTED} c=/var/cache/tok`);
  });

  it.each([
    ['an Anthropic key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_wx-yz0123456789'],
    ['an OpenAI project key', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
    ['a GitHub token', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
    ['a fine-grained GitHub token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['a Google API key', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ])('redacts %s found anywhere in text', (_what, token) => {
    expect(redactText(`before ${token} after`)).toBe(`before ${REDACTED} after`);
  });

  it('redacts bearer tokens, URL credentials and key query parameters but keeps the URL', () => {
    expect(redactText('Authorization: Bearer abc.def-ghi_jkl.mno')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText('could not reach http://admin:s3cretpw@proxy.example:8080/v1')).toBe(`could not reach http://${REDACTED}@proxy.example:8080/v1`);
    expect(redactText('GET https://x.example/v1?alt=sse&key=AIzaNOTAKEY123')).toBe(`GET https://x.example/v1?alt=sse&key=${REDACTED}`);
    expect(redactText('see https://example.com/docs?page=2 and mail me@example.com')).toBe('see https://example.com/docs?page=2 and mail me@example.com');
  });
});
