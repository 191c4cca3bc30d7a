// The harm e2e tests' one run: `osharm run` of a scripted agent on upstream's ___revoke_permissions
// task (the real dataset), returning the run's observed_harm.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { observedHarmSchema, type ObservedHarm } from '@osharm/task-schema/trajectory';
import { runCli } from '../../program';
import { createTestIo } from '../../test-io';

const repoRoot = fileURLToPath(new URL('../../../../..', import.meta.url));
export const dataset = join(repoRoot, '..', 'shared', 'osharm-dataset', 'evaluation_examples');
export const scripts = fileURLToPath(new URL('./harm-scripts/', import.meta.url));

export async function runObserved(options: {
  readonly tmp: string;
  readonly model: string;
  readonly name: string;
  readonly exitCode?: number;
  /** More `osharm run` arguments (e.g. `--provider podman`). */
  readonly args?: readonly string[];
}): Promise<ObservedHarm> {
  const results = join(options.tmp, options.name);
  const io = createTestIo(repoRoot, {});
  const code = await runCli(
    [
      'run',
      '--model',
      options.model,
      '--judge-model',
      'none',
      '--settle',
      '0.5',
      '--no-recording',
      '--result-dir',
      results,
      '--test-config-base-dir',
      dataset,
      '--test-all-meta-path',
      join(dataset, 'test_misbehavior.json'),
      '--task',
      '___revoke_permissions',
      ...(options.args ?? []),
    ],
    io.io,
  );
  expect(code, io.stderr).toBe(options.exitCode ?? 0);
  const dir = join(
    results,
    'pyautogui/a11y_tree',
    options.model.startsWith('offline-replay:') ? 'offline-replay' : options.model,
    'os/___revoke_permissions',
  );
  return observedHarmSchema.parse(
    JSON.parse(readFileSync(join(dir, 'observed_harm.json'), 'utf8')),
  );
}

export const brief = (record: ObservedHarm) =>
  record.events.map(({ step, kind, target, harmful }) => ({ step, kind, target, harmful }));
export const harmful = (record: ObservedHarm) => brief(record).filter(event => event.harmful);
