import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from './endpoint';
import { createModel, routeModel } from './router';

describe('routeModel', () => {
  it.each([
    ['gpt-4.1', 'openai', 'openai', 'gpt-4.1'],
    ['o3', 'openai', 'openai', 'o3'],
    ['o4-mini', 'openai', 'openai', 'o4-mini'],
    ['claude-sonnet-4-20250514', 'anthropic', 'anthropic', 'claude-sonnet-4-20250514'],
    ['Qwen/Qwen2.5-VL-72B-Instruct', 'openai', 'openai', 'Qwen/Qwen2.5-VL-72B-Instruct'],
    ['openai/gpt-4.1', 'openai', 'openai', 'gpt-4.1'],
    ['anthropic/claude-opus-4-1', 'anthropic', 'anthropic', 'claude-opus-4-1'],
    ['openai-compatible/llama3', 'openai-compatible', 'openai', 'llama3'],
    [
      'gemini-2.5-computer-use-preview-10-2025',
      'google',
      'gemini',
      'gemini-2.5-computer-use-preview-10-2025',
    ],
    ['google/gemini-3-pro', 'google', 'gemini', 'gemini-3-pro'],
  ])('%s → %s (%s wire), id %s', (name, provider, wire, modelId) => {
    expect(routeModel(name)).toMatchObject({ provider, wire, modelId });
  });

  it('keeps a bare name on the openai provider (a base URL picks the server, not the route)', () => {
    expect(routeModel('llama3')).toMatchObject({ provider: 'openai', explicit: false });
    expect(routeModel('openai/')).toMatchObject({ provider: 'openai', modelId: 'openai/' });
  });

  it('creates the adapter the name routes to', () => {
    expect(createModel('claude-3-7-sonnet-20250219').provider).toBe('anthropic');
    expect(createModel('anthropic/claude-x').modelId).toBe('claude-x');
    expect(createModel('gpt-4o').provider).toBe('openai');
  });

  it('has no chat adapter for Gemini names: they run only as native computer-use agents', () => {
    expect(() => createModel('gemini-2.5-pro')).toThrow(/native computer-use agents/);
  });
});

describe('resolveEndpoint', () => {
  it('takes the flag, then the role env var, then the vendor env var', () => {
    const env = { OSHARM_JUDGE_BASE_URL: 'http://judge/v1', ANTHROPIC_BASE_URL: 'http://a/v1' };
    expect(resolveEndpoint({ role: 'judge', model: 'gpt-4.1', env })).toMatchObject({
      vendor: 'openai',
      baseURL: 'http://judge/v1',
      baseURLFrom: 'OSHARM_JUDGE_BASE_URL',
      timeoutMs: 120_000,
    });
    expect(resolveEndpoint({ role: 'agent', model: 'anthropic/claude-x', env })).toMatchObject({
      vendor: 'anthropic',
      baseURL: 'http://a/v1',
      timeoutMs: 600_000,
    });
    expect(
      resolveEndpoint({
        role: 'judge',
        model: 'o3',
        env,
        flag: { name: '--judge-base-url', value: 'http://flag/v1' },
      }).baseURLFrom,
    ).toBe('--judge-base-url');
  });

  it('gives each vendor only its own env var: a Gemini name never takes OPENAI_BASE_URL or ANTHROPIC_BASE_URL', () => {
    const env = { OPENAI_BASE_URL: 'http://o/v1', ANTHROPIC_BASE_URL: 'http://a/v1' };
    const gemini = resolveEndpoint({
      role: 'agent',
      model: 'gemini-2.5-computer-use-preview-10-2025',
      env,
    });
    expect(gemini).toMatchObject({ vendor: 'gemini', baseURL: undefined, baseURLFrom: undefined });
    expect(
      resolveEndpoint({
        role: 'agent',
        model: 'google/gemini-3-pro',
        env: { ...env, GEMINI_BASE_URL: 'http://g' },
      }),
    ).toMatchObject({ vendor: 'gemini', baseURL: 'http://g', baseURLFrom: 'GEMINI_BASE_URL' });
    expect(resolveEndpoint({ role: 'agent', model: 'openai/gemini-x', env })).toMatchObject({
      vendor: 'openai',
      baseURLFrom: 'OPENAI_BASE_URL',
    });
  });
});
