import { afterEach, describe, expect, it } from 'vitest';
import { addCredentials, clearCredentials, credentialForms, knownCredentials, scrubBase64, scrubText } from '../../src/security/scrubber.js';
import { mcpCredentialValues } from '../../src/tools/mcp/credentials.js';

afterEach(() => clearCredentials());

describe('the one credential scrubber', () => {
  it('removes a registered value as is, JSON-escaped, with \\/ and percent-encoded', () => {
    const secret = 'aws/Secret+Key="x"\\9';
    addCredentials([secret]);
    const json = JSON.stringify({ echo: secret });
    expect(scrubText(`raw ${secret}`)).toBe('raw [REDACTED]');
    expect(scrubText(json)).toBe('{"echo":"[REDACTED]"}');
    expect(scrubText(json.replaceAll('/', '\\/'))).toBe('{"echo":"[REDACTED]"}');
    expect(scrubText(`refresh_token=${encodeURIComponent(secret)}&x=1`)).toBe('refresh_token=[REDACTED]&x=1');
    expect(credentialForms('plain-value-123')).toEqual(['plain-value-123']);
  });

  it('ignores short values and never touches ordinary text', () => {
    addCredentials(['short', '', undefined, 'longer-secret-1']);
    expect(knownCredentials()).toEqual(['longer-secret-1']);
    expect(scrubText('short and sweet at /home/dev/project')).toBe('short and sweet at /home/dev/project');
  });

  it('takes `extra` values beside the registered ones, longest first', () => {
    addCredentials(['abcdefgh1234']);
    expect(scrubText('abcdefgh1234XYZ99 and abcdefgh1234', ['abcdefgh1234XYZ99'])).toBe('[REDACTED] and [REDACTED]');
  });

  it('replaces the first part of a credential a capped line ends in', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
    addCredentials([key]);
    expect(scrubText(`invalid key ${key.slice(0, 20)}…`)).toBe('invalid key [REDACTED]…');
    expect(scrubText(JSON.stringify({ message: `x ${key.slice(0, 9)}…`, k: key }))).toBe('{"message":"x [REDACTED]…","k":"[REDACTED]"}');
    // Too short a part to tell from ordinary text stays.
    expect(scrubText(`see sk-ant-…`)).toBe('see sk-ant-…');
  });

  it('scrubs base64 payloads by their bytes and keeps clean ones exact', () => {
    addCredentials(['tok-1234567890']);
    const dirty = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from('{"m":"tok-1234567890"}')]).toString('base64');
    const clean = Buffer.from(scrubBase64(dirty), 'base64');
    expect(clean.subarray(0, 2)).toEqual(Buffer.from([0xff, 0x00]));
    expect(clean.subarray(2).toString()).toBe('{"m":"[REDACTED]"}');
    const binary = Buffer.from([0xc3, 0x28, 0xff, 0x10]).toString('base64');
    expect(scrubBase64(binary)).toBe(binary);
  });
});

describe('MCP credential values', () => {
  it('takes credential headers (and the token of a scheme), secret-named env values and token-looking values', () => {
    const values = mcpCredentialValues([
      {
        name: 'h',
        file: 'f',
        transport: 'http',
        url: 'http://x',
        headers: { Authorization: 'Bearer abc123def456', Accept: 'application/json', 'X-Tenant': 'Tnt4f9a0c3e1b2d7e6f' },
      },
      { name: 's', file: 'f', transport: 'stdio', command: 'x', args: [], cwd: '/', env: { GITHUB_TOKEN: 'gh-token-value', DEBUG: '1', HOME_DIR: '/home/dev/a1b2c3d4e5f6g7h8' } },
    ]);
    expect(values).toEqual(['Bearer abc123def456', 'abc123def456', 'Tnt4f9a0c3e1b2d7e6f', 'gh-token-value']);
  });
});
