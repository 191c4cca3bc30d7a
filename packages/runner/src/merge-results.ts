import { randomBytes } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  discoverTrajectories,
  readRunStatus,
  type RunStatus,
  UnsafeFileError,
} from '@osharm/task-schema/trajectory';
import { ensureDirInside } from '@osharm/task-schema/internal';
import {
  copyRunFiles,
  finishedAt,
  listRunDir,
  sameRunDir,
  type RunDirListing,
} from './merge-files';
import { RunOptionsError } from './run-options';

/** Options of {@link mergeResults}. */
export interface MergeOptions {
  /** Results trees to merge (`osharm run --result-dir` of each shard or machine). */
  readonly inputs: readonly string[];
  /** The merged tree; created when absent. What it already holds counts as the first input. */
  readonly into: string;
  /**
   * Two finished copies of a run that differ: `first` keeps the first (in `into`, then input
   * order), `newest` the one whose `result.txt` is newest. @default absent: a conflict
   */
  readonly prefer?: 'first' | 'newest';
  /** Plan and report only: nothing is written. @default false */
  readonly dryRun?: boolean;
  /** Relative paths resolve against it. @default process.cwd() */
  readonly cwd?: string;
}

/** A run dir copied into the merged tree (or that would be, on a dry run). */
export interface MergedRun {
  /** The run dir relative to the tree roots. */
  readonly run: string;
  /** The input tree it comes from. */
  readonly from: string;
  readonly state: RunStatus['state'];
  /** The `into` copy it replaces (an errored or unfinished one), if any. */
  readonly replaces?: RunStatus['state'];
  /** Symlinks and special files in the source dir: not copied. */
  readonly refused: readonly string[];
}

/** A copy of a run that was not taken, and why. */
export interface SkippedRun {
  readonly run: string;
  readonly from: string;
  readonly reason: string;
}

/** Two or more finished copies of one run that differ (with no `prefer`). */
export interface MergeConflict {
  readonly run: string;
  /** The run dirs, in input order. */
  readonly paths: readonly string[];
}

/** What {@link mergeResults} did (or would do). */
export interface MergeReport {
  readonly merged: readonly MergedRun[];
  readonly skipped: readonly SkippedRun[];
  /** When not empty nothing was written. */
  readonly conflicts: readonly MergeConflict[];
  /** Batch results files of the inputs: per-tree files, not merged (judge the merged tree). */
  readonly notMerged: readonly string[];
  /** True when the merged tree was written (false on a dry run or with conflicts). */
  readonly written: boolean;
}

interface Copy {
  readonly root: string;
  readonly dir: string;
  readonly status: RunStatus;
  /** This copy is already in `into`. */
  readonly existing: boolean;
  listing?: RunDirListing;
}

/** Staging dirs inside `into` while copying: never taken for run dirs. */
const STAGING_PREFIX = '.osharm-merge-';
const RANK: Record<RunStatus['state'], number> = {
  finished: 0,
  environment_destroyed_by_agent: 1,
  errored: 2,
  unfinished: 3,
};

const inside = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
async function realOrPlanned(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await realOrPlanned(parent), relative(parent, path));
  }
}

/** The run dirs of a tree (`better_log.json` or `traj.jsonl`), outermost only, never a symlink. */
async function runDirsOf(
  root: string,
  resultsFiles?: string[],
): Promise<{ run: string; dir: string }[]> {
  const dirs = await discoverTrajectories(root, { runDirs: true, resultsFiles });
  const found = new Set(dirs);
  const runs: { run: string; dir: string }[] = [];
  for (const dir of dirs) {
    const run = relative(root, dir);
    if (run === '')
      throw new RunOptionsError(
        `${root} is a run dir itself: give the results root (--result-dir)`,
      );
    if (run.startsWith(STAGING_PREFIX)) continue;
    let parent = dirname(dir);
    let nested = false;
    for (; inside(root, parent) && parent !== root; parent = dirname(parent))
      nested ||= found.has(parent);
    if (!nested) runs.push({ run, dir });
  }
  return runs;
}

/**
 * Merges results trees (the shards of one benchmark, or runs from several machines) into one tree
 * of the same layout. Per run dir: a finished copy (a score in `result.txt`) beats an errored or
 * unfinished one; identical finished copies are one; finished copies that differ are a conflict
 * unless `prefer` says which to keep, and with any conflict nothing is written. Each run dir is
 * copied into a staging dir inside `into` and renamed into place, so a crash never leaves half a
 * run; symlinks and special files in the inputs are never followed or copied, and every directory
 * written is checked to be a real directory inside `into`. Judgments (`judgment/`) and captions
 * come along with their run dir; batch results files are listed in `notMerged`.
 * @throws {RunOptionsError} when an input is missing, a symlink, a run dir itself, or overlaps `into`.
 */
export async function mergeResults(options: MergeOptions): Promise<MergeReport> {
  const cwd = options.cwd ?? process.cwd();
  const into = resolve(cwd, options.into);
  const inputs = options.inputs.map(input => resolve(cwd, input));
  if (inputs.length === 0)
    throw new RunOptionsError('osharm merge: name at least one results tree');
  const realInto = await realOrPlanned(into);
  const seen: string[] = [];
  for (const input of inputs) {
    const info = await lstat(input).catch(() => undefined);
    if (!info) throw new RunOptionsError(`${input}: no such results tree`);
    if (info.isSymbolicLink())
      throw new RunOptionsError(
        `${input}: is a symlink (merge never follows one): give its target`,
      );
    if (!info.isDirectory()) throw new RunOptionsError(`${input}: not a directory`);
    const real = await realpath(input);
    if (inside(real, realInto) || inside(realInto, real))
      throw new RunOptionsError(`${input} and --into ${into} overlap: merge into a separate dir`);
    if (seen.some(other => inside(other, real) || inside(real, other)))
      throw new RunOptionsError(`${input}: named twice, or inside another input`);
    seen.push(real);
  }
  const intoInfo = await lstat(into).catch(() => undefined);
  if (intoInfo && (intoInfo.isSymbolicLink() || !intoInfo.isDirectory()))
    throw new RunOptionsError(`--into ${into}: not a directory (a symlink is refused)`);

  const copies = new Map<string, Copy[]>();
  const add = async (root: string, existing: boolean, resultsFiles?: string[]) => {
    for (const { run, dir } of await runDirsOf(root, resultsFiles)) {
      const copy: Copy = { root, dir, status: await readRunStatus(dir), existing };
      copies.set(run, [...(copies.get(run) ?? []), copy]);
    }
  };
  if (intoInfo) await add(into, true);
  const notMerged: string[] = [];
  for (const input of inputs) await add(input, false, notMerged);

  const merged: MergedRun[] = [];
  const skipped: SkippedRun[] = [];
  const conflicts: MergeConflict[] = [];
  const listing = async (copy: Copy) => (copy.listing ??= await listRunDir(copy.dir));
  for (const run of [...copies.keys()].sort()) {
    const all = copies.get(run)!;
    const best = Math.min(...all.map(copy => RANK[copy.status.state]));
    const top = all.filter(copy => RANK[copy.status.state] === best);
    let chosen = top[0]!;
    const reasons = new Map<Copy, string>();
    if (chosen.status.state === 'finished') {
      const differing: Copy[] = [];
      for (const copy of top.slice(1)) {
        const same = await sameRunDir(
          { dir: chosen.dir, listing: await listing(chosen) },
          { dir: copy.dir, listing: await listing(copy) },
        );
        if (same) reasons.set(copy, `same files as ${chosen.dir}`);
        else differing.push(copy);
      }
      if (differing.length > 0) {
        if (!options.prefer) {
          conflicts.push({ run, paths: [chosen, ...differing].map(copy => copy.dir) });
          continue;
        }
        if (options.prefer === 'newest') {
          const times = await Promise.all(top.map(copy => finishedAt(copy.dir)));
          chosen = top[times.indexOf(Math.max(...times))]!;
        }
        for (const copy of [top[0]!, ...differing])
          if (copy !== chosen)
            reasons.set(
              copy,
              `finished copies differ: --prefer ${options.prefer} kept ${chosen.dir}`,
            );
      }
    }
    for (const copy of all)
      if (copy !== chosen && !copy.existing)
        skipped.push({
          run,
          from: copy.root,
          reason:
            reasons.get(copy) ??
            `${copy.status.state}: the ${chosen.status.state} copy in ${chosen.root} is kept`,
        });
    if (chosen.existing) continue;
    const replaced = all.find(copy => copy.existing);
    merged.push({
      run,
      from: chosen.root,
      state: chosen.status.state,
      ...(replaced ? { replaces: replaced.status.state } : {}),
      refused: (await listing(chosen)).refused,
    });
  }

  const report = { merged, skipped, conflicts, notMerged: notMerged.sort() };
  if (conflicts.length > 0 || options.dryRun || merged.length === 0)
    return { ...report, written: false };
  await writeMerged(into, merged, copies);
  return { ...report, written: true };
}

/** Copies each merged run into a staging dir inside `into`, then renames it into place. */
async function writeMerged(
  into: string,
  merged: readonly MergedRun[],
  copies: ReadonlyMap<string, Copy[]>,
): Promise<void> {
  await mkdir(into, { recursive: true });
  // A run dir inside --into that is a symlink (or a file) is refused before anything is written:
  // merge never replaces, renames or writes through one.
  for (const entry of merged) {
    const target = join(into, entry.run);
    const info = await lstat(target).catch(() => undefined);
    if (info && (info.isSymbolicLink() || !info.isDirectory()))
      throw new UnsafeFileError({
        file: target,
        reason: info.isSymbolicLink() ? 'symlink' : 'not-regular',
        message: `is ${info.isSymbolicLink() ? 'a symlink' : 'not a directory'} inside --into: merge refuses to replace it`,
      });
  }
  const staging = `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`;
  try {
    for (const [index, entry] of merged.entries()) {
      const source = copies
        .get(entry.run)!
        .find(copy => copy.root === entry.from && !copy.existing)!;
      const staged = await ensureDirInside(into, join(staging, String(index)));
      await copyRunFiles(source.dir, source.listing!.files, staged, dir =>
        ensureDirInside(into, join(staging, String(index), dir)),
      );
      const target = join(
        await ensureDirInside(into, dirname(entry.run)),
        entry.run.split(sep).at(-1)!,
      );
      if (entry.replaces) await rename(target, join(into, staging, `${index}.replaced`));
      await rename(staged, target);
    }
  } finally {
    await rm(join(into, staging), { recursive: true, force: true });
  }
}
