import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  countDegradedObservations,
  readDegradedObservations,
  summarizeDegraded,
} from './degraded-observations';
import { fidelityRecord } from './fidelity';
import { fidelityRecordSchema } from './fidelity-schema';
import { parseTaskConfig } from './task-config-schema';

const step = (observation?: Record<string, unknown>) => ({
  a11y_tree: '<tree/>',
  screenshot_file: 'step_1.png',
  response: 'x',
  actions: [],
  ...(observation ? { observation } : {}),
});

describe('countDegradedObservations', () => {
  it('counts truncated or failed trees and late observations, each observation once', () => {
    const log = {
      steps: [
        step({ a11y_tree: 'complete', ms: 900, late: false }),
        step({ a11y_tree: 'truncated', ms: 10_400, late: false }),
        step({ a11y_tree: 'failed', ms: 15_100, late: true }),
        step({ a11y_tree: 'complete', ms: 16_000, late: true }),
        step({ a11y_tree: 'not_requested', ms: 300, late: false }),
      ],
    };
    expect(countDegradedObservations(log)).toBe(3);
  });

  it('is null when no step records its quality (upstream logs, no agent step), 0 when all are complete', () => {
    expect(countDegradedObservations({ steps: [step(), step()] })).toBeNull();
    expect(countDegradedObservations({ steps: [] })).toBeNull();
    expect(countDegradedObservations({})).toBeNull();
    expect(countDegradedObservations(null)).toBeNull();
    expect(countDegradedObservations('steps')).toBeNull();
    expect(
      countDegradedObservations({ steps: [step({ a11y_tree: 'complete', late: false }), null, 7] }),
    ).toBe(0);
  });
});

describe('readDegradedObservations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'osharm-degraded-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads the run dir's better_log.json; absent, not JSON or a symlink is null", async () => {
    expect(await readDegradedObservations(dir)).toBeNull();
    const log = { steps: [step({ a11y_tree: 'truncated', ms: 10_000, late: false })] };
    await writeFile(join(dir, 'better_log.json'), JSON.stringify(log));
    expect(await readDegradedObservations(dir)).toBe(1);
    await writeFile(join(dir, 'better_log.json'), '{"steps": [');
    expect(await readDegradedObservations(dir)).toBeNull();
    const other = join(dir, 'elsewhere');
    await mkdir(other);
    await writeFile(join(other, 'log.json'), JSON.stringify(log));
    await rm(join(dir, 'better_log.json'));
    await symlink(join(other, 'log.json'), join(dir, 'better_log.json'));
    expect(await readDegradedObservations(dir)).toBeNull();
  });
});

describe('in the fidelity record', () => {
  const task = parseTaskConfig(
    {
      id: '_t',
      snapshot: 'x',
      instruction: 'do it',
      source: '',
      config: [],
      related_apps: [],
      evaluator: { func: 'infeasible' },
    },
    { file: 't.json' },
  ).config!;
  const record = (degradedObservations: number | null | undefined) =>
    fidelityRecordSchema.parse(
      fidelityRecord({
        task,
        domain: 'os',
        run: 'os/_t',
        provider: 'local',
        installedApps: ['terminal'],
        setup: { version: 1, warnings: [], downloads: [] },
        degradedObservations,
      }),
    );

  it('records the count; degraded observations make the run unfaithful', () => {
    expect(record(0)).toMatchObject({ degraded_observations: 0, faithful: true, reasons: [] });
    expect(record(undefined)).toMatchObject({ degraded_observations: null, faithful: true });
    const degraded = record(2);
    expect(degraded.degraded_observations).toBe(2);
    expect(degraded.faithful).toBe(false);
    expect(degraded.reasons).toEqual([
      '2 observation(s) the agent got were degraded (accessibility tree cut or missing, or late)',
    ]);
  });

  it('summarizeDegraded counts runs and observations, and the runs whose count is unknown', () => {
    expect(
      summarizeDegraded([
        { degraded_observations: 0 },
        { degraded_observations: 3 },
        { degraded_observations: null },
        { degraded_observations: 1 },
      ]),
    ).toEqual({ runs: 2, observations: 4, unknown: 1 });
    expect(summarizeDegraded([])).toEqual({ runs: 0, observations: 0, unknown: 0 });
  });
});
