import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  expandInjectionRuns,
  injectionVectorSchema,
  parseTaskConfig,
  setupStepSchema,
  type InjectionRun,
  type TaskConfig,
} from '@osharm/task-schema';
import { resolveTaskAsset } from '@osharm/task-schema/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INJECTION_GOALS } from './injection-goals';
import { prepareInjection, type PreparedInjection } from './prepare-injection';

/**
 * Acceptance test over the real upstream injection tasks, read in place from `../shared`
 * (never copied into the repository).
 */
const BASE = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples', import.meta.url),
);
const TRAJECTORIES = fileURLToPath(
  new URL('../../../../shared/real-trajectories/', import.meta.url),
);

interface Prepared {
  readonly task: TaskConfig;
  readonly run: InjectionRun;
  readonly kind: 'local' | 'vmware';
  readonly result: PreparedInjection;
}

let tasks: TaskConfig[];
let listed = 0;
let runs: { task: TaskConfig; run: InjectionRun }[];
const prepared: Prepared[] = [];
let root: string | undefined;
afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

beforeAll(async () => {
  const index = JSON.parse(readFileSync(join(BASE, 'test_injection.json'), 'utf8')) as Record<
    string,
    string[]
  >;
  tasks = Object.entries(index).flatMap(([domain, ids]) =>
    ids.map(id => {
      const file = join(BASE, 'examples', domain, `${id}.json`);
      const { config, issues } = parseTaskConfig(JSON.parse(readFileSync(file, 'utf8')), { file });
      expect(issues.filter(issue => issue.severity === 'error')).toEqual([]);
      return config!;
    }),
  );
  runs = tasks.flatMap(task => {
    const expansion = expandInjectionRuns(task);
    listed += expansion.listed;
    return expansion.runs.map(run => ({ task, run }));
  });
  root = await mkdtemp(join(tmpdir(), 'osharm-injection-upstream-'));
  for (const { task, run } of runs) {
    for (const kind of ['local', 'vmware'] as const) {
      const workDir = join(root, kind, `${task.id}${run.dirSuffix}`);
      const result = await prepareInjection({
        task,
        run,
        baseDir: BASE,
        workDir,
        environment: { kind },
      });
      prepared.push({ task, run, kind, result });
    }
  }
});

describe('the upstream injection tasks', () => {
  it('expand to 51 listed and 50 unique runs', () => {
    expect(tasks).toHaveLength(10);
    expect(listed).toBe(51);
    expect(runs).toHaveLength(50);
    expect(new Set(runs.map(({ task, run }) => `${task.id}${run.dirSuffix}`)).size).toBe(50);
  });

  it('has the run counts per vector and goal of the reference', () => {
    const count = (key: (run: InjectionRun) => string) =>
      runs.reduce<Record<string, number>>((counts, { run }) => {
        counts[key(run)] = (counts[key(run)] ?? 0) + 1;
        return counts;
      }, {});
    expect(count(run => run.vector.type)).toEqual({
      website: 8,
      desktop_notification: 12,
      libreoffice_writer: 8,
      vs_code: 14,
      thunderbird_mail_draft: 4,
      thunderbird_mail_received: 4,
    });
    expect(count(run => run.goal)).toEqual({
      stop_task: 7,
      email_send_prompt: 7,
      url_query_params: 5,
      terminal_cron_setup: 5,
      terminal_local_script: 4,
      terminal_remote_script: 4,
      swisstransfer_send_files: 4,
      delete_all_user_files: 4,
      form_paste_ssh: 3,
      delete_all_system_files: 3,
      email_send_password: 2,
      email_send_file: 2,
    });
  });

  it('prepares all 50 runs in both environments with valid steps and existing files', () => {
    expect(prepared).toHaveLength(100);
    for (const { task, run, kind, result } of prepared) {
      const where = `${kind} ${task.id}${run.dirSuffix}`;
      expect(result.steps.length, where).toBeGreaterThan(0);
      for (const step of result.steps) {
        expect(setupStepSchema.safeParse(step).success, `${where}: ${JSON.stringify(step)}`).toBe(
          true,
        );
      }
      for (const file of result.files) expect(existsSync(file), `${where}: ${file}`).toBe(true);
      for (const step of result.steps) {
        if (step.type !== 'upload_file') continue;
        for (const upload of (step.parameters as { files: { local_path: string }[] }).files) {
          const resolved = resolveTaskAsset(upload.local_path, { baseDir: result.assetRoot });
          expect(resolved.ok, `${where}: ${upload.local_path}`).toBe(true);
          if (resolved.ok) expect(result.files).toContain(resolved.path);
        }
      }
      expect(result.evidence).toHaveLength(1);
      expect(result.evidence[0]).toMatchObject({
        goal: run.goal,
        vector: run.vector.type,
        dirSuffix: run.dirSuffix,
      });
    }
  });

  it('records task.injection as the vector plus content and goal_id', () => {
    for (const { run, result } of prepared) {
      expect(injectionVectorSchema.safeParse(result.injection).success).toBe(true);
      expect(Object.keys(result.injection)).toEqual([
        ...Object.keys(run.vector),
        'content',
        'goal_id',
      ]);
      expect(result.injection.content).toBe(INJECTION_GOALS[run.goal].text);
      expect(result.injection.goal_id).toBe(run.goal);
      expect(result.injection.goals).toEqual(run.vector.goals); // the full list, duplicates included
      expect(run.vector).not.toHaveProperty('content'); // the task is not mutated
    }
  });

  it('matches the shape of task.injection in real upstream better_log.json files', () => {
    const real = readdirSync(TRAJECTORIES, { withFileTypes: true })
      .filter(entry => entry.isDirectory())
      .map(entry =>
        JSON.parse(readFileSync(join(TRAJECTORIES, entry.name, 'better_log.json'), 'utf8')),
      )
      .map(log => log.task.injection as Record<string, unknown>);
    expect(real.length).toBeGreaterThanOrEqual(4);
    for (const theirs of real) {
      const ours = prepared.find(
        ({ run }) =>
          run.vector.type === theirs.type &&
          run.goal === theirs.goal_id &&
          run.vector.additional_config === theirs.additional_config,
      );
      expect(ours, JSON.stringify(theirs)).toBeDefined();
      const mine = ours!.result.injection as Record<string, unknown>;
      expect(Object.keys(mine)).toEqual(Object.keys(theirs));
      for (const key of Object.keys(theirs)) expect(typeof mine[key], key).toBe(typeof theirs[key]);
      expect(injectionVectorSchema.safeParse(theirs).success).toBe(true);
    }
  });

  it('warns about nothing: the dataset ships every file an injection writes into (main.py, test.py)', () => {
    const warned = new Set(prepared.flatMap(({ result }) => result.warnings));
    expect([...warned]).toEqual([]);
  });
});
