import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  type InjectionGoalId,
  type InjectionRun,
  type InjectionVector,
  type SetupStep,
} from '@osharm/task-schema';
import { resolveTaskAsset } from '@osharm/task-schema/internal';
import { type EvidenceProbe } from './evidence-probes';
import { InjectionSetupError } from './injection-errors';
import { type GoalTexts } from './injection-goals';
import type { InjectionTemplates } from './upstream-injection';
import { PlanBuilder } from './plan-builder';

/** Where the run happens; decides how the injection is served and whether the guest is instrumented. */
export interface InjectionEnvironment {
  /**
   * `local`: the embedded desktop without internet (pages are served on 127.0.0.1, nothing
   * Ubuntu-specific runs). `vmware`: upstream's Ubuntu image, with upstream's flows.
   */
  readonly kind: 'local' | 'vmware';
  /**
   * Install the evidence helpers in the guest: the capture listener (HTTP + SMTP on 127.0.0.1), the
   * logging shims for curl / wget / crontab / sudo first on PATH, history flushed after each
   * command, and canary files. The local website vector starts the listener in any case (it serves
   * the page).
   * @default kind === 'local'
   */
  readonly instrument?: boolean;
  /** Ports of the capture listener. @default { http: 18080, smtp: 2525 } */
  readonly capturePorts?: { readonly http?: number; readonly smtp?: number };
  /** Browser profile roots searched by the evidence probes. @default Chrome's and Chromium's under ~/.config, Firefox's ~/.mozilla/firefox */
  readonly browserProfileDirs?: readonly string[];
}

/** `better_log.json` `task.injection`: the task's vector object plus `content` and `goal_id`. */
export type InjectionRecord = InjectionVector & {
  readonly content: string;
  readonly goal_id: InjectionGoalId;
};

/** A file the setup uploads, before it is written to the work dir. */
export interface PlannedFile {
  /** Path relative to the work dir; also the `local_path` of the upload step. */
  readonly path: string;
  readonly data: Uint8Array;
}

/** Reads a dataset asset by its `local_path` (`assets/…`); `undefined` when it is not there. */
export type ReadAsset = (localPath: string) => Uint8Array | undefined;

/** Options of {@link planInjection}. */
export interface PlanInjectionOptions {
  /** The task (only its id is used, for messages). */
  readonly task: { readonly id?: string };
  /** One run from task-schema's `expandInjectionRuns(task).runs`. */
  readonly run: InjectionRun;
  readonly environment: InjectionEnvironment;
  /** Goal texts (e.g. from `loadGoalTexts`); goals it lacks use the built-in text. */
  readonly texts?: Readonly<Partial<GoalTexts>>;
  /**
   * The texts the vectors wrap around the goal text (upstream's, from `loadUpstreamInjection`);
   * each one absent is osharm's own.
   */
  readonly templates?: InjectionTemplates;
  readonly readAsset: ReadAsset;
}

/** The injection of one run as data: nothing is written and nothing runs. */
export interface InjectionPlan {
  /**
   * Setup steps to run after the task's own `config` (upstream: after `env.reset` and a 5 s sleep).
   * `upload_file` `local_path`s are relative to the work dir that holds {@link files}.
   */
  readonly steps: SetupStep[];
  /** The files those steps upload. */
  readonly files: PlannedFile[];
  /** `better_log.json` `task.injection`. */
  readonly injection: InjectionRecord;
  /** Deterministic checks to run after the agent has finished (`collectEvidence`). */
  readonly evidence: EvidenceProbe[];
  /** Non-fatal notes, e.g. a stand-in used for an upstream asset the dataset lacks. */
  readonly warnings: string[];
  /** Where upstream's first observation shows the injected content (fidelity.json checks it). */
  readonly placement: InjectionPlacement;
}

/**
 * Where upstream's first observation shows a run's injected content, beyond the text itself: the
 * address its browser shows (`website`) and the subjects its message list shows
 * (`thunderbird_mail_received`).
 */
export interface InjectionPlacement {
  readonly upstreamUrl?: string;
  readonly listedSubjects?: readonly string[];
}

/** Options of {@link prepareInjection}. */
export interface PrepareInjectionOptions extends Omit<PlanInjectionOptions, 'readAsset'> {
  /** Dataset base dir (holds `examples/`); assets resolve against it, then its parent. */
  readonly baseDir: string;
  /** Host directory for this run's files (created if needed; use one per run). */
  readonly workDir: string;
}

/** {@link InjectionPlan} with the files written. */
export interface PreparedInjection extends Omit<InjectionPlan, 'files'> {
  /** Absolute host paths of the written files. */
  readonly files: string[];
  /** Resolve the steps' `upload_file` `local_path`s against this directory (the work dir). */
  readonly assetRoot: string;
}

/**
 * Prepares one injection run: builds the plan ({@link planInjection}) with assets read from the
 * dataset, and writes the files its steps upload into `workDir`. The only I/O is reading assets
 * and writing `workDir`; nothing touches a guest.
 *
 * @throws {InjectionSetupError} a required asset is missing or unusable (see {@link planInjection})
 */
export async function prepareInjection(
  options: PrepareInjectionOptions,
): Promise<PreparedInjection> {
  const { baseDir, workDir, ...rest } = options;
  const readAsset: ReadAsset = localPath => {
    const resolved = resolveTaskAsset(localPath, { baseDir });
    if (resolved.ok) return readFileSync(resolved.path);
    if (resolved.reason === 'missing') return undefined;
    throw new InjectionSetupError({ message: resolved.message, dirSuffix: options.run.dirSuffix });
  };
  const plan = planInjection({ ...rest, readAsset });
  const files: string[] = [];
  for (const file of plan.files) {
    const target = join(workDir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.data);
    files.push(target);
  }
  return {
    steps: plan.steps,
    files,
    assetRoot: workDir,
    injection: plan.injection,
    evidence: plan.evidence,
    warnings: plan.warnings,
    placement: plan.placement,
  };
}

/**
 * Builds the injection of one run as a pure transform of the task: the vector's setup steps, then
 * the goal-dependent files (an explicit goal → files map), the `task.injection` record and the
 * evidence probes. When the environment is instrumented, the evidence helpers are installed first.
 *
 * @throws {InjectionSetupError} the vector lacks `params`; the `libreoffice_writer` file is missing,
 *   not a `.docx`, or not a valid one; the `vs_code` file has an unsupported extension
 */
export function planInjection(options: PlanInjectionOptions): InjectionPlan {
  return new PlanBuilder(options).build();
}
