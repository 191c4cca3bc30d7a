import {
  judgeTypeUsesObservationType,
  type JudgeType,
  type ObservationType,
  type PromptProvenance,
  type PromptVersion,
  type UpstreamSource,
} from '@osharm/task-schema';
import { parseJsonText } from '@osharm/task-schema/internal';
import {
  judgmentRelativePath,
  type Judgment,
  type JudgmentProvenance,
} from '@osharm/task-schema/artifacts';
import { readJudgmentLeniently } from '@osharm/task-schema/internal';
import {
  DEFAULT_FILE_LIMITS,
  readTrajectoryText,
  UnsafeFileError,
} from '@osharm/task-schema/trajectory';
import { checkModelAtStart, lifecycleRecord } from '@osharm/models';
import { lstatSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from './version';

/**
 * judgment.json files this process read and found holding osharm's provenance, with the file's
 * identity then (device, inode, size, change and modification times): the writer's guard
 * ({@link assertWritableJudgment}) trusts a file whose identity is unchanged instead of reading it a
 * second time. Any replacement or edit since (a new inode, a new ctime) is read and checked again.
 */
const osharmJudgments = new Map<string, string>();
const OSHARM_JUDGMENTS_KEPT = 4096;

/** A regular file's identity, or undefined (none there, or not a regular file). */
function fileIdentity(stat: BigIntStats | undefined): string | undefined {
  return stat?.isFile()
    ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`
    : undefined;
}
const statOf = (path: string) => lstatSync(path, { bigint: true, throwIfNoEntry: false });

/**
 * Whose wording osharm's prompts are in. osharm's v1 / v2 / v3 are this project's own wording of
 * upstream's criteria, not upstream's text, so a verdict made with them is not upstream's verdict.
 */
export const OSHARM_PROMPT_FAMILY = 'osharm';

/** What a judging is asked to be: the settings a verdict's provenance must match to be reused. */
export interface JudgingRequest {
  readonly judgeModel: string;
  readonly judgeType: JudgeType;
  readonly promptVersion: PromptVersion;
  readonly observationType: ObservationType;
  /** Captioner model for caption-based judge types; undefined otherwise. */
  readonly captioner?: string;
  /** Whose texts the prompts are made of. @default `{ prompt_family: 'osharm' }` */
  readonly prompts?: PromptProvenance;
}

/** Where the models were served and what the verdict saw, for {@link provenanceFor}. */
export interface VerdictFacts {
  /** Origin of the judge model's endpoint (`ModelV1.endpoint`). */
  readonly judgeEndpoint?: string;
  /** Origin of the captioner's endpoint. */
  readonly captionerEndpoint?: string;
  /** Screenshots the judge type should have seen, and how many were missing. */
  readonly images?: { readonly expected: number; readonly missing: number };
}

/** The provenance record of a verdict osharm makes now. */
export function provenanceFor(
  request: JudgingRequest,
  servedModel: string | undefined,
  facts: VerdictFacts = {},
  at: Date = new Date(),
): JudgmentProvenance {
  return {
    tool: 'osharm',
    tool_version: VERSION,
    prompt_family: request.prompts?.prompt_family ?? OSHARM_PROMPT_FAMILY,
    ...(request.prompts?.upstream_sources && {
      upstream_sources: request.prompts.upstream_sources.map(source => ({ ...source })),
    }),
    prompt_version: request.promptVersion,
    judge_type: request.judgeType,
    observation_type: request.observationType,
    captioner: request.captioner ?? null,
    judge_model_requested: request.judgeModel,
    judge_model_served: servedModel ?? null,
    judged_at: at.toISOString(),
    // Where the judge (and captioner) model stood in its life that day, per the SDKs' data.
    judge_model_lifecycle: lifecycleRecord(
      checkModelAtStart('judge', request.judgeModel, at).lifecycle,
    ),
    ...(request.captioner !== undefined && {
      captioner_lifecycle: lifecycleRecord(
        checkModelAtStart('captioner', request.captioner, at).lifecycle,
      ),
    }),
    judge_endpoint: facts.judgeEndpoint ?? null,
    captioner_endpoint: request.captioner === undefined ? null : (facts.captionerEndpoint ?? null),
    ...(facts.images && { images: { ...facts.images } }),
  };
}

/** The files an upstream verdict's texts came from, as one comparable text (null for none). */
function sourcesKey(sources: readonly UpstreamSource[] | undefined): string | null {
  if (!sources || sources.length === 0) return null;
  const files = new Map(sources.map(source => [source.file, source.sha256.slice(0, 12)]));
  return [...files]
    .sort()
    .map(([file, sha]) => `${file}@${sha}`)
    .join(',');
}

/** The model id a vendor response names (`model` of OpenAI and Anthropic bodies), if any. */
export function servedModelOf(response: unknown): string | undefined {
  const model = (response as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' && model !== '' && model.length <= 200 ? model : undefined;
}

/** The observation type shapes the judge input of the per-step judges only (JUDGE_TYPE_TRAITS). */
const usesObservationType = judgeTypeUsesObservationType;

/**
 * The differences between a recorded provenance and a request, as `key: had → wanted` texts;
 * empty when the verdict is the one the request asks for.
 */
export function provenanceDifferences(
  provenance: JudgmentProvenance,
  request: JudgingRequest,
): string[] {
  const wanted: [string, string | null, string | null][] = [
    [
      'prompt_family',
      provenance.prompt_family,
      request.prompts?.prompt_family ?? OSHARM_PROMPT_FAMILY,
    ],
    // The same family from another checkout (a changed file) is another prompt.
    [
      'upstream_sources',
      sourcesKey(provenance.upstream_sources),
      sourcesKey(request.prompts?.upstream_sources),
    ],
    ['prompt_version', provenance.prompt_version, request.promptVersion],
    ['judge_type', provenance.judge_type, request.judgeType],
    ['judge_model', provenance.judge_model_requested, request.judgeModel],
    ['captioner', provenance.captioner, request.captioner ?? null],
  ];
  if (usesObservationType(request.judgeType))
    wanted.push(['observation_type', provenance.observation_type, request.observationType]);
  return wanted
    .filter(([, had, want]) => had !== want)
    .map(([key, had, want]) => `${key}: ${had ?? 'none'} → ${want ?? 'none'}`);
}

/**
 * The prompt-version dir osharm writes to when the standard one holds a verdict of another
 * provenance (with `rejudgeForeign`): `{version}.osharm` plus the observation type for per-step
 * judges and the captioner for caption judges, e.g. `v3.osharm.screenshot` (`v3.osharm.upstream…`
 * for upstream's prompts). Upstream's readers
 * keep reading the standard dir (upstream's file, untouched); osharm's report reads both and shows
 * them as two judges.
 */
export function qualifiedVersionDir(request: JudgingRequest): string {
  const parts = [request.promptVersion, 'osharm'];
  if (request.prompts?.prompt_family === 'upstream') parts.push('upstream');
  if (usesObservationType(request.judgeType)) parts.push(request.observationType);
  if (request.captioner !== undefined) parts.push(request.captioner.replaceAll('/', '_'));
  return parts.join('.');
}

/** A judgment file found where a request would write. */
export type ExistingJudgment =
  | { readonly state: 'none' }
  /** osharm's verdict for exactly this request: resume reuses it. */
  | {
      readonly state: 'match';
      readonly judgment: Judgment;
      readonly versionDir: string;
      readonly provenance: JudgmentProvenance;
    }
  /** A verdict of another provenance (upstream's, or osharm's with other settings): kept. */
  | {
      readonly state: 'foreign';
      readonly judgment?: Judgment;
      /** Why it is not reused (`written by another tool`, the settings that differ, or why it could not be read). */
      readonly reason: string;
      /** What was read leniently in it. */
      readonly normalised: readonly string[];
      readonly file: string;
      /** True when osharm wrote it (a valid provenance record); only such a file may be replaced. */
      readonly byOsharm: boolean;
    };

/** Reads the judgment at one version dir, classified against the request. */
async function classifyAt(
  dir: string,
  request: JudgingRequest,
  versionDir: string,
): Promise<ExistingJudgment> {
  const file = judgmentRelativePath({ ...request, promptVersion: versionDir });
  const path = join(dir, file);
  const before = fileIdentity(statOf(path));
  let text: string;
  try {
    text = await readTrajectoryText(file, {
      within: dir,
      maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { state: 'none' };
    if (UnsafeFileError.isInstance(error) && error.reason === 'missing') return { state: 'none' };
    // Refused (a symlink, not a regular file, too large): kept and reported, never written over.
    return {
      state: 'foreign',
      reason: `not read (${error instanceof Error ? error.message : String(error)})`,
      normalised: [],
      file,
      byOsharm: false,
    };
  }
  const json = parseJsonText(text, file);
  if (!json.ok)
    return {
      state: 'foreign',
      reason: `not valid JSON (${json.issue.message})`,
      normalised: [],
      file,
      byOsharm: false,
    };
  const read = readJudgmentLeniently(json.value);
  if (!read.ok)
    return {
      state: 'foreign',
      reason: `not a judgment (${read.issue})`,
      normalised: [],
      file,
      byOsharm: false,
    };
  if (!read.provenance)
    return {
      state: 'foreign',
      judgment: read.judgment,
      reason: 'written by another tool (no osharm provenance)',
      normalised: read.normalised,
      file,
      byOsharm: false,
    };
  // Unchanged while it was read: the writer's guard may trust it (osharmJudgments).
  if (before !== undefined && before === fileIdentity(statOf(path))) {
    if (osharmJudgments.size >= OSHARM_JUDGMENTS_KEPT)
      osharmJudgments.delete(osharmJudgments.keys().next().value!);
    osharmJudgments.set(path, before);
  }
  const differences = provenanceDifferences(read.provenance, request);
  if (differences.length > 0)
    return {
      state: 'foreign',
      judgment: read.judgment,
      reason: `osharm verdict of other settings (${differences.join(', ')})`,
      normalised: read.normalised,
      file,
      byOsharm: true,
    };
  return { state: 'match', judgment: read.judgment, versionDir, provenance: read.provenance };
}

/**
 * What resume does with a trajectory: reuse osharm's verdict for this request (at the standard
 * path, or at the qualified one a `rejudgeForeign` judging wrote), judge into the standard path
 * when it is free, or — when it holds a verdict of another provenance — keep that file and report
 * it (`foreign`), judging into the qualified path only with `rejudgeForeign`.
 */
export type ResumePlan =
  | {
      readonly action: 'reuse';
      readonly judgment: Judgment;
      readonly versionDir: string;
      readonly provenance: JudgmentProvenance;
    }
  | { readonly action: 'judge'; readonly versionDir: string; readonly kept?: ExistingJudgment }
  | {
      readonly action: 'keep-foreign';
      readonly foreign: Extract<ExistingJudgment, { state: 'foreign' }>;
    };

/** Plans resume for one trajectory dir (see {@link ResumePlan}). `force` re-judges osharm's own verdicts. */
export async function planResume(
  dir: string,
  request: JudgingRequest,
  options: { readonly force?: boolean; readonly rejudgeForeign?: boolean } = {},
): Promise<ResumePlan> {
  const standard = await classifyAt(dir, request, request.promptVersion);
  if (standard.state === 'none') return { action: 'judge', versionDir: request.promptVersion };
  if (standard.state === 'match')
    return options.force
      ? { action: 'judge', versionDir: request.promptVersion }
      : {
          action: 'reuse',
          judgment: standard.judgment,
          versionDir: standard.versionDir,
          provenance: standard.provenance,
        };
  const qualifiedDir = qualifiedVersionDir(request);
  const qualified = await classifyAt(dir, request, qualifiedDir);
  if (qualified.state === 'match' && !options.force)
    return {
      action: 'reuse',
      judgment: qualified.judgment,
      versionDir: qualifiedDir,
      provenance: qualified.provenance,
    };
  if (!options.rejudgeForeign) return { action: 'keep-foreign', foreign: standard };
  // The qualified path is osharm's own: only a verdict osharm wrote there may be replaced.
  if (qualified.state === 'foreign' && !qualified.byOsharm)
    return { action: 'keep-foreign', foreign: qualified };
  return { action: 'judge', versionDir: qualifiedDir, kept: standard };
}

/** One line for a kept foreign verdict: where, why, and what was read leniently. */
export function describeForeign(foreign: Extract<ExistingJudgment, { state: 'foreign' }>): string {
  const normalised =
    foreign.normalised.length > 0 ? `; read leniently: ${foreign.normalised.join('; ')}` : '';
  return `${foreign.file}: ${foreign.reason}${normalised}`;
}

/**
 * Refuses to write a judgment over a file osharm did not write (another tool's verdict, a damaged
 * or refused file): the last guard behind {@link planResume}, for every caller of `writeJudgment`.
 * @throws {Error} naming the file when it exists and holds no valid osharm provenance.
 */
export async function assertWritableJudgment(dir: string, file: string): Promise<void> {
  const path = join(dir, file);
  const stat = statOf(path);
  if (!stat) return;
  const known = osharmJudgments.get(path);
  if (known !== undefined && known === fileIdentity(stat)) return;
  let text: string;
  try {
    text = await readTrajectoryText(file, {
      within: dir,
      maxBytes: DEFAULT_FILE_LIMITS.maxTextBytes,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    if (UnsafeFileError.isInstance(error) && error.reason === 'missing') return;
    throw new Error(
      `${file}: not written over (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const json = parseJsonText(text, file);
  const read = json.ok ? readJudgmentLeniently(json.value) : undefined;
  if (!read?.ok || !read.provenance)
    throw new Error(
      `${file}: holds a judgment osharm did not write; kept, not written over (rejudgeForeign / --rejudge-foreign writes beside it)`,
    );
}
