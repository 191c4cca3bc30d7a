import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expandInjectionRuns, injectionDirSuffix, parseRunDirName } from './injection-runs';
import { INJECTION_GOAL_IDS, INJECTION_VECTOR_IDS, type InjectionVector } from './injection-schema';
import { parseTaskConfig, type TaskConfig } from './task-config-schema';

const EXAMPLES = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples/examples/', import.meta.url),
);
function upstreamTask(domainAndId: string): TaskConfig {
  const file = `${EXAMPLES}${domainAndId}.json`;
  const { config, issues } = parseTaskConfig(JSON.parse(readFileSync(file, 'utf8')), { file });
  expect(issues).toEqual([]);
  return config!;
}

describe('injectionDirSuffix', () => {
  it('is __inject__{vector}__{goal}', () => {
    expect(injectionDirSuffix('thunderbird_mail_received', 'stop_task')).toBe(
      '__inject__thunderbird_mail_received__stop_task',
    );
    expect(injectionDirSuffix('vs_code', 'terminal_cron_setup')).toBe(
      '__inject__vs_code__terminal_cron_setup',
    );
  });
});

describe('expandInjectionRuns', () => {
  it('drops the duplicate stop_task of upstream 98e8e339 (4 listed, 3 runs)', () => {
    const task = upstreamTask('multi_apps/98e8e339-5f91-4ed2-b2b2-12647cb134f4');
    const expansion = expandInjectionRuns(task);
    expect(expansion.listed).toBe(4);
    expect(expansion.runs.map(run => run.dirSuffix)).toEqual([
      '__inject__vs_code__terminal_cron_setup',
      '__inject__vs_code__stop_task',
      '__inject__vs_code__delete_all_system_files',
    ]);
    expect(expansion.duplicates).toEqual([{ vectorIndex: 0, goal: 'stop_task' }]);
    // Each run points at the vector entry of the task, not a copy.
    expect(expansion.runs.every(run => run.vector === task.injections![0])).toBe(true);
  });

  it('expands every vector in order, with the vector index', () => {
    const task = upstreamTask('thunderbird/__injected_email');
    const expansion = expandInjectionRuns(task);
    expect(expansion.runs.map(run => `${run.vectorIndex} ${run.vector.type} ${run.goal}`))
      .toMatchInlineSnapshot(`
        [
          "0 thunderbird_mail_received url_query_params",
          "0 thunderbird_mail_received terminal_cron_setup",
          "0 thunderbird_mail_received delete_all_user_files",
          "0 thunderbird_mail_received stop_task",
          "1 desktop_notification swisstransfer_send_files",
          "1 desktop_notification terminal_remote_script",
          "1 desktop_notification delete_all_user_files",
        ]
      `);
    expect(expansion.listed).toBe(7);
    expect(expansion.duplicates).toEqual([]);
  });

  it('a goal repeated under another vector is not a duplicate; under the same vector type it is', () => {
    const injections: InjectionVector[] = [
      { type: 'desktop_notification', goals: ['stop_task'], additional_config: 'thunderbird' },
      { type: 'website', goals: ['stop_task'] },
      { type: 'desktop_notification', goals: ['stop_task', 'url_query_params'] },
    ];
    const expansion = expandInjectionRuns({ injections });
    expect(expansion.listed).toBe(4);
    expect(expansion.runs.map(run => `${run.vectorIndex}${run.dirSuffix}`)).toEqual([
      '0__inject__desktop_notification__stop_task',
      '1__inject__website__stop_task',
      '2__inject__desktop_notification__url_query_params',
    ]);
    expect(expansion.duplicates).toEqual([{ vectorIndex: 2, goal: 'stop_task' }]);
  });

  it('a task without injections has no runs', () => {
    expect(expandInjectionRuns({})).toEqual({ runs: [], listed: 0, duplicates: [] });
    expect(expandInjectionRuns({ injections: undefined })).toEqual({
      runs: [],
      listed: 0,
      duplicates: [],
    });
  });
});

describe('parseRunDirName', () => {
  it('parses the example of the reference', () => {
    expect(
      parseRunDirName('__injected_email__inject__thunderbird_mail_received__stop_task'),
    ).toStrictEqual({
      taskId: '__injected_email',
      injection: { vector: 'thunderbird_mail_received', goal: 'stop_task' },
    });
  });

  it('round-trips every vector × goal id, for several kinds of task ids', () => {
    const taskIds = [
      '__injected_email',
      'ec71221e-ac43-46f9-89b8-ee7d80f7e1c5',
      '_x',
      'a__b__c',
      'task__inject__', // an id that itself holds the marker
    ];
    let checked = 0;
    for (const taskId of taskIds)
      for (const vector of INJECTION_VECTOR_IDS)
        for (const goal of INJECTION_GOAL_IDS) {
          const name = `${taskId}${injectionDirSuffix(vector, goal)}`;
          expect(parseRunDirName(name), name).toStrictEqual({
            taskId,
            injection: { vector, goal },
          });
          checked += 1;
        }
    expect(checked).toBe(5 * 6 * 12);
  });

  it('round-trips every upstream injection run', () => {
    const index = JSON.parse(readFileSync(`${EXAMPLES}../test_injection.json`, 'utf8')) as Record<
      string,
      string[]
    >;
    const names: string[] = [];
    for (const [domain, ids] of Object.entries(index))
      for (const id of ids)
        for (const run of expandInjectionRuns(upstreamTask(`${domain}/${id}`)).runs) {
          const name = `${id}${run.dirSuffix}`;
          names.push(name);
          expect(parseRunDirName(name)).toStrictEqual({
            taskId: id,
            injection: { vector: run.vector.type, goal: run.goal },
          });
        }
    expect(names).toHaveLength(50);
    expect(new Set(names).size).toBe(50);
  });

  it.each([
    ['no suffix', '__injected_email'],
    ['an OSWorld uuid', '2ad9387a-65d8-4e33-ad5b-7580065a27ca'],
    ['an unknown vector', '__injected_email__inject__email__stop_task'],
    ['an unknown goal', '__injected_email__inject__website__stop'],
    ['no goal', '__injected_email__inject__website'],
    ['no goal after the separator', '__injected_email__inject__website__'],
    ['text after the goal', '__injected_email__inject__website__stop_task__retry'],
    ['a single-underscore separator', '__injected_email__inject__website_stop_task'],
    ['no task id before the suffix', '__inject__website__stop_task'],
    ['an empty name', ''],
  ])('keeps the whole name as the task id with %s', (_case, name) => {
    expect(parseRunDirName(name)).toStrictEqual({ taskId: name });
  });

  it('uses the last __inject__ marker', () => {
    expect(
      parseRunDirName('t__inject__website__stop_task__inject__vs_code__form_paste_ssh'),
    ).toStrictEqual({
      taskId: 't__inject__website__stop_task',
      injection: { vector: 'vs_code', goal: 'form_paste_ssh' },
    });
  });
});
