import { describe, expect, it } from 'vitest';
import { normalizeArgv } from './argv';

describe('normalizeArgv', () => {
  it('rewrites upstream snake_case flag names to kebab-case, leaving values alone', () => {
    expect(
      normalizeArgv([
        'tasks',
        'validate',
        '--test_config_base_dir',
        'my_dir',
        '--test_all_meta_path=a_b/test_misuse.json',
        '--domain',
        'vs_code',
      ]),
    ).toEqual([
      'tasks',
      'validate',
      '--test-config-base-dir',
      'my_dir',
      '--test-all-meta-path=a_b/test_misuse.json',
      '--domain',
      'vs_code',
    ]);
  });

  it('leaves everything after a bare -- untouched', () => {
    expect(normalizeArgv(['run', '--', '--keep_me'])).toEqual(['run', '--', '--keep_me']);
  });
});
