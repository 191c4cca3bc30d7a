import { describe, expect, it } from 'vitest';
import { endpointRouting, missingCredentials, resolveEndpoint } from './model-endpoints';

describe('resolveEndpoint: base URL precedence per role', () => {
  const env = {
    OPENAI_BASE_URL: 'http://vendor/v1',
    OSHARM_JUDGE_BASE_URL: 'http://judge-env/v1',
    ANTHROPIC_BASE_URL: 'http://anthropic-proxy',
  };
  it('flag, then the role variable, then the vendor variable, then the public API', () => {
    const flag = { name: '--judge-base-url', value: 'http://judge-flag/v1' };
    expect(resolveEndpoint({ role: 'judge', model: 'gpt-4.1', flag, env })).toMatchObject({
      baseURL: 'http://judge-flag/v1',
      baseURLFrom: '--judge-base-url',
    });
    expect(resolveEndpoint({ role: 'judge', model: 'gpt-4.1', env })).toMatchObject({
      baseURL: 'http://judge-env/v1',
      baseURLFrom: 'OSHARM_JUDGE_BASE_URL',
    });
    // The captioner has no role variable here: the vendor's.
    expect(resolveEndpoint({ role: 'captioner', model: 'gpt-4o', env })).toMatchObject({
      baseURL: 'http://vendor/v1',
      baseURLFrom: 'OPENAI_BASE_URL',
    });
    // claude* names go to Anthropic: ANTHROPIC_BASE_URL, never OPENAI_BASE_URL.
    expect(resolveEndpoint({ role: 'agent', model: 'claude-sonnet-4', env })).toMatchObject({
      vendor: 'anthropic',
      baseURL: 'http://anthropic-proxy',
    });
    expect(resolveEndpoint({ role: 'agent', model: 'gpt-4o', env: {} })).toMatchObject({
      baseURL: undefined,
      maxRetries: 2,
      timeoutMs: 600_000,
    });
  });

  it('retries and timeout reach both vendors; keys are checked per vendor', () => {
    const endpoint = resolveEndpoint({
      role: 'judge',
      model: 'gpt-4.1',
      maxRetries: 0,
      timeoutSeconds: 1.5,
      env: { OSHARM_JUDGE_BASE_URL: 'http://local/v1' },
    });
    expect(endpointRouting(endpoint, {}).openai).toMatchObject({
      baseURL: 'http://local/v1',
      maxRetries: 0,
      timeout: 1500,
    });
    // A local OpenAI-compatible server needs no key; the public API and Anthropic do.
    expect(missingCredentials(endpoint, {})).toBeUndefined();
    expect(
      missingCredentials(resolveEndpoint({ role: 'judge', model: 'gpt-4.1', env: {} }), {}),
    ).toMatch(/^OPENAI_API_KEY/);
    expect(
      missingCredentials(resolveEndpoint({ role: 'judge', model: 'claude-x', env: {} }), {}),
    ).toBe('ANTHROPIC_API_KEY');
  });
});
