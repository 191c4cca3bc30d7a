import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '@osharm/task-schema';
import { parseA11yTable } from '@osharm/task-schema/trajectory';
import { compareFirstObservations, isShellRow } from './observation-compare';
import { RunOptionsError } from './run-options';
import { planRuns, type PlannedRun } from './run-plan';
import { matchUpstreamRun, readUpstreamRuns, type UpstreamRun } from './upstream-runs';

// Upstream's recorded runs and the dataset are read in place from ../shared (never copied); the
// trees compared against them are derived from upstream's own at test time.
const shared = (path: string) =>
  fileURLToPath(new URL(`../../../../shared/${path}`, import.meta.url));
const TRAJECTORIES = shared('real-trajectories');
const DATASET = shared('osharm-dataset/evaluation_examples');
const tmp = mkdtempSync(join(tmpdir(), 'osharm-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let upstream: UpstreamRun[];
let plan: PlannedRun[];
beforeAll(async () => {
  upstream = await readUpstreamRuns(TRAJECTORIES);
  const { tasks } = await loadDataset({
    baseDir: DATASET,
    indexPaths: ['test_misuse.json', 'test_injection.json', 'test_misbehavior.json'].map(name =>
      join(DATASET, name),
    ),
  });
  plan = await planRuns({
    tasks,
    resultDir: join(tmp, 'never-written'),
    actionSpace: '',
    observationType: '',
    modelDir: '',
    inject: true,
  });
});

/** The task ids the shared README's table gives each example (its "task id" column). */
function readmeTaskIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const line of readFileSync(join(TRAJECTORIES, 'README.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map(cell => cell.trim());
    if (cells.length > 4 && /^[a-z_]+\/\S+$/.test(cells[2] ?? '')) ids.set(cells[1]!, cells[2]!);
  }
  return ids;
}

describe('readUpstreamRuns + matchUpstreamRun on the real upstream runs', () => {
  it('reads every run dir and matches each to the task the README names, with its injection', () => {
    const ids = readmeTaskIds();
    expect(upstream.map(run => run.name).sort()).toEqual([...ids.keys()].sort());
    for (const run of upstream) {
      const matched = matchUpstreamRun(run, plan);
      const log = JSON.parse(readFileSync(join(run.dir, 'better_log.json'), 'utf8'));
      expect(`${matched.task.domain}/${matched.task.id}`).toBe(ids.get(run.name));
      expect(matched.injection?.vector.type).toBe(log.task.injection.type);
      expect(matched.injection?.goal).toBe(log.task.injection.goal_id);
      expect(matched.label).toBe(
        `${ids.get(run.name)}__inject__${log.task.injection.type}__${log.task.injection.goal_id}`,
      );
    }
  });

  const write = (name: string, log: unknown) => {
    const dir = join(tmp, 'crafted', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'better_log.json'), JSON.stringify(log));
    return join(tmp, 'crafted', name);
  };
  const real = () => JSON.parse(readFileSync(join(upstream[0]!.dir, 'better_log.json'), 'utf8'));

  it('a crafted log is refused with its file and field named', async () => {
    const noTree = real();
    delete noTree.steps[0].a11y_tree;
    const dir = write('no-tree', noTree);
    await expect(readUpstreamRuns(dir)).rejects.toThrow(RunOptionsError);
    await expect(readUpstreamRuns(dir)).rejects.toThrow(
      `${join(dir, 'better_log.json')}: steps[0].a11y_tree: expected`,
    );
    const badTask = real();
    badTask.task.instruction = 42;
    await expect(readUpstreamRuns(write('bad-task', badTask))).rejects.toThrow(
      /better_log\.json: .*task.*instruction/,
    );
    const jailbreak = real();
    jailbreak.task.jailbreak = true;
    await expect(readUpstreamRuns(write('jailbreak', jailbreak))).rejects.toThrow(
      /task\.jailbreak: jailbreak runs are not compared/,
    );
    await expect(readUpstreamRuns(join(tmp, 'absent'))).rejects.toThrow(/--compare .*ENOENT/);
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    await expect(readUpstreamRuns(empty)).rejects.toThrow(/no better_log\.json found/);
  });

  it('an instruction or injection the dataset does not have is an error naming the field', async () => {
    const unknown = real();
    unknown.task.instruction = 'Rename every file on the desktop to upper case.';
    const [run] = await readUpstreamRuns(write('unknown', unknown));
    expect(() => matchUpstreamRun(run!, plan)).toThrow(/task\.instruction: no task of the dataset/);
    const otherGoal = real();
    otherGoal.task.injection.goal_id = 'form_paste_ssh';
    const [other] = await readUpstreamRuns(write('other-goal', otherGoal));
    expect(() => matchUpstreamRun(other!, plan)).toThrow(
      /task\.injection: the injection desktop_notification \/ form_paste_ssh is not among the runs of chrome\//,
    );
  });
});

describe('compareFirstObservations', () => {
  const byName = (name: string) => upstream.find(run => run.name === name)!;
  const rows = (tree: string) => tree.split('\n');
  /** The tree with each row passed through `change` (header kept; null drops the row). */
  const rewrite = (tree: string, change: (line: string) => string | null) =>
    rows(tree)
      .map((line, index) => (index === 0 ? line : change(line)))
      .filter((line): line is string => line !== null)
      .join('\n');
  const shift = (line: string, dx: number) =>
    line.replace(
      /\((-?\d+), (-?\d+)\)\t\((\d+), (\d+)\)$/,
      (_, x, y, w, h) => `(${Number(x) + dx}, ${y})\t(${w}, ${h})`,
    );
  const isShell = (line: string) => {
    const [row] = parseA11yTable(`h\n${line}`);
    return row !== undefined && isShellRow(row);
  };

  it("upstream's own observation: every row at its position; the dock and top bar are shell rows", () => {
    for (const run of upstream) {
      const same = compareFirstObservations(run.firstObservation, run.firstObservation, {
        upstream: run.injection?.content ?? null,
        osharm: run.injection?.content ?? null,
      });
      expect(same.coverage.at_position).toBe(same.coverage.of);
      expect(same.app.missing + same.shell.missing + same.web.missing).toBe(0);
      const table = parseA11yTable(run.firstObservation);
      const dock = table.filter(row => row.x === 0 && row.width === 70);
      expect(dock.length).toBeGreaterThanOrEqual(12);
      expect(dock.every(isShellRow)).toBe(true);
      expect(same.shell.upstream).toBeGreaterThanOrEqual(dock.length + 2);
      expect(same.address.equal).toBe(same.address.upstream === null ? null : true);
    }
  });

  it('a desktop without the shell, windows moved right, page content elsewhere: missing, moved, apart', () => {
    const run = byName('stop_task_notification');
    const content = run.injection!.content!;
    const ours = rewrite(run.firstObservation, line => (isShell(line) ? null : shift(line, 30)));
    const result = compareFirstObservations(run.firstObservation, ours, {
      upstream: content,
      osharm: content,
    });
    expect(result.shell.at_position).toBe(0);
    expect(result.shell.missing).toBe(result.shell.upstream);
    expect(result.app.at_position).toBe(0);
    expect(result.app.moved).toBe(result.app.upstream);
    expect(result.web.upstream).toBeGreaterThan(0);
    expect(result.web.moved).toBe(result.web.upstream);
    expect(result.banner).toMatchObject({ at_position: false });
    expect(result.coverage.of).toBe(result.app.upstream + result.shell.upstream + 1);
    expect(result.coverage.present).toBe(result.app.upstream + 1);
  });

  it('the address bar and the listed mail are compared as they read', () => {
    const website = byName('swisstransfer_website');
    const local = rewrite(website.firstObservation, line =>
      line.startsWith('entry\t')
        ? line.replace(/^(entry\t[^\t]*\t)[^\t]*/, '$1127.0.0.1:18080/index.html')
        : line,
    );
    const address = compareFirstObservations(website.firstObservation, local).address;
    expect(address.equal).toBe(false);
    expect(address.osharm).toBe('127.0.0.1:18080/index.html');
    const mail = byName('thunderbird_swisstransfer');
    const listed = compareFirstObservations(mail.firstObservation, mail.firstObservation).mail;
    expect(listed.upstream.length).toBeGreaterThan(0);
    const unlisted = rewrite(mail.firstObservation, line =>
      line.startsWith('list-item\t') ? null : line,
    );
    expect(compareFirstObservations(mail.firstObservation, unlisted).mail.osharm).toEqual([]);
    // A browser's error page beside the mail window lists items too: they are not mail.
    const withErrorPage = `${unlisted}\nlist-item\t• Check your network connection.\t• Check your network connection.\t\t\t(883, 477)\t(472, 18)`;
    expect(compareFirstObservations(mail.firstObservation, withErrorPage).mail.osharm).toEqual([]);
    expect(
      compareFirstObservations(
        mail.firstObservation,
        `${mail.firstObservation}\n${withErrorPage.split('\n').at(-1)}`,
      ).mail.osharm,
    ).toEqual(listed.upstream);
  });
});
