import { describe, expect, it } from 'vitest';
import { escapeControlChars } from './control-chars';
import { redactSecrets, registerSecret } from './secrets';

describe('redactSecrets', () => {
  it('removes the values of key env variables, raw and JSON-escaped', () => {
    const env = {
      OPENAI_API_KEY: 'local-key-0123456789',
      MY_TOKEN: 'tok"en\\value12',
      HOME: '/root/home',
    };
    const body = `{"error":{"message":"Incorrect API key provided: local-key-0123456789"}}`;
    expect(redactSecrets(body, env)).toBe(
      '{"error":{"message":"Incorrect API key provided: [REDACTED]"}}',
    );
    expect(redactSecrets(JSON.stringify({ e: env.MY_TOKEN }), env)).toBe('{"e":"[REDACTED]"}');
    expect(redactSecrets('home is /root/home', env)).toBe('home is /root/home');
  });

  it('sees a key set in the env after an earlier call, and one changed since', () => {
    const env: Record<string, string> = { HOME: '/root' };
    expect(redactSecrets('value later-set-key-000111', env)).toBe('value later-set-key-000111');
    env.LATER_API_KEY = 'later-set-key-000111';
    expect(redactSecrets('value later-set-key-000111', env)).toBe('value [REDACTED]');
    env.LATER_API_KEY = 'changed-key-222333444';
    expect(redactSecrets('old later-set-key-000111 new changed-key-222333444', env)).toBe(
      'old later-set-key-000111 new [REDACTED]',
    );
  });

  it('removes common key shapes and registered keys without an env', () => {
    expect(redactSecrets('key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv and more', {})).toBe(
      'key [REDACTED] and more',
    );
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnopqrstuvwx', {})).toBe(
      'Authorization: Bearer [REDACTED]',
    );
    expect(redactSecrets('{"x-api-key": "abcdefghijklmnop1234"}', {})).toBe(
      '{"x-api-key": "[REDACTED]"}',
    );
    registerSecret('custom-configured-key-42');
    expect(redactSecrets('echo custom-configured-key-42', {})).toBe('echo [REDACTED]');
    registerSecret('short');
    expect(redactSecrets('a short word', {})).toBe('a short word');
  });
});

describe('escapeControlChars', () => {
  it('makes escape sequences, CR, newlines and bidi overrides visible', () => {
    expect(escapeControlChars('run\x1b[2J\x1b[Hx')).toBe('run\\u001b[2J\\u001b[Hx');
    expect(escapeControlChars('a\r[9/9] ok\nb\u202ec')).toBe('a\\u000d[9/9] ok\\u000ab\\u202ec');
    expect(escapeControlChars('line 1\n\tline 2\x07', { keepNewlines: true })).toBe(
      'line 1\n\tline 2\\u0007',
    );
    expect(escapeControlChars('plain — ü ✓')).toBe('plain — ü ✓');
  });
});
