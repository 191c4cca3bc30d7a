import { z } from 'zod';
import { CATCH_ALL_BRANCH } from './zod-issues';

/**
 * Setup steps: the `config` list of a task and the evaluator's `postconfig` list, each
 * `{ "type": T, "parameters": {...} }` (reference/osworld-harness.md §2). Every known type has its own
 * parameter schema. All objects are loose: fields we do not know are kept, never stripped. A step
 * whose `type` is not known still parses (as {@link UnknownSetupStep}); the dataset loader reports
 * it as a warning.
 */

/** A command as a list of arguments, or one string (split with shell rules unless `shell` is set). */
export const commandSchema = z.union([z.string(), z.array(z.string())]);

const step = <T extends string, P extends z.ZodType>(type: T, parameters: P) =>
  z.looseObject({ type: z.literal(type), parameters });

const windowParameters = z.looseObject({
  /** Window title (or WM_CLASS with `by_class`), matched as a substring unless `strict`. */
  window_name: z.string(),
  strict: z.boolean().optional(),
  by_class: z.boolean().optional(),
});

const executeParameters = z.looseObject({
  command: commandSchema,
  shell: z.boolean().optional(),
  /** File name (in the host cache dir) that receives the command's stdout. */
  stdout: z.string().optional(),
  /** File name (in the host cache dir) that receives the command's stderr. */
  stderr: z.string().optional(),
  /** Re-run until the result matches (returncode, or a substring of stdout / stderr). */
  until: z
    .looseObject({
      returncode: z.number().int().optional(),
      stdout: z.string().optional(),
      stderr: z.string().optional(),
    })
    .optional(),
});

const downloadStepSchema = step(
  'download',
  z.looseObject({
    files: z.array(z.looseObject({ url: z.url(), path: z.string().min(1) })).min(1),
  }),
);
const uploadFileStepSchema = step(
  'upload_file',
  z.looseObject({
    /** `local_path` is relative to the dataset's asset root (upstream: the repository root). */
    files: z
      .array(z.looseObject({ local_path: z.string().min(1), path: z.string().min(1) }))
      .min(1),
  }),
);
const openStepSchema = step('open', z.looseObject({ path: z.string().min(1) }));
const launchStepSchema = step(
  'launch',
  z.looseObject({ command: commandSchema, shell: z.boolean().optional() }),
);
const executeStepSchema = step('execute', executeParameters);
const commandStepSchema = step('command', executeParameters);
const executeWithVerificationStepSchema = step(
  'execute_with_verification',
  z.looseObject({
    command: commandSchema,
    shell: z.boolean().optional(),
    verification: z
      .looseObject({
        window_exists: z.string().optional(),
        command_success: z.string().optional(),
      })
      .optional(),
    max_wait_time: z.number().nonnegative().optional(),
    check_interval: z.number().positive().optional(),
  }),
);
const sleepStepSchema = step('sleep', z.looseObject({ seconds: z.number().nonnegative() }));
const activateWindowStepSchema = step('activate_window', windowParameters);
const closeWindowStepSchema = step('close_window', windowParameters);
const changeWallpaperStepSchema = step(
  'change_wallpaper',
  z.looseObject({ path: z.string().min(1) }),
);
const chromeOpenTabsStepSchema = step(
  'chrome_open_tabs',
  z.looseObject({ urls_to_open: z.array(z.string()).min(1) }),
);
const chromeCloseTabsStepSchema = step(
  'chrome_close_tabs',
  z.looseObject({ urls_to_close: z.array(z.string()).min(1) }),
);
const googledriveStepSchema = step(
  'googledrive',
  z.looseObject({
    settings_file: z.string().optional(),
    operation: z.array(z.enum(['delete', 'mkdirs', 'upload'])),
    args: z.array(z.unknown()),
  }),
);
const loginStepSchema = step(
  'login',
  z.looseObject({ settings_file: z.string().optional(), platform: z.literal('googledrive') }),
);
const updateBrowseHistoryStepSchema = step(
  'update_browse_history',
  z.looseObject({
    history: z.array(
      z.looseObject({
        url: z.string(),
        title: z.string(),
        visit_time_from_now_in_seconds: z.number(),
      }),
    ),
  }),
);
const proxyStepSchema = step('proxy', z.looseObject({ client_password: z.string().optional() }));
const anyParameters = z.record(z.string(), z.unknown());
/** Upstream declares these but raises "not implemented" when they run. */
const tidyDesktopStepSchema = step('tidy_desktop', anyParameters.optional());
const actStepSchema = step('act', anyParameters.optional());
const replayStepSchema = step('replay', anyParameters.optional());

export const knownSetupStepSchema = z.discriminatedUnion('type', [
  downloadStepSchema,
  uploadFileStepSchema,
  openStepSchema,
  launchStepSchema,
  executeStepSchema,
  commandStepSchema,
  executeWithVerificationStepSchema,
  sleepStepSchema,
  activateWindowStepSchema,
  closeWindowStepSchema,
  changeWallpaperStepSchema,
  chromeOpenTabsStepSchema,
  chromeCloseTabsStepSchema,
  googledriveStepSchema,
  loginStepSchema,
  updateBrowseHistoryStepSchema,
  proxyStepSchema,
  tidyDesktopStepSchema,
  actStepSchema,
  replayStepSchema,
]);

/** Every setup step type the schema knows, in the order of reference/osworld-harness.md §2. */
export const SETUP_STEP_TYPES = [
  'download',
  'upload_file',
  'open',
  'launch',
  'execute',
  'command',
  'execute_with_verification',
  'sleep',
  'activate_window',
  'close_window',
  'change_wallpaper',
  'chrome_open_tabs',
  'chrome_close_tabs',
  'googledrive',
  'login',
  'update_browse_history',
  'proxy',
  'tidy_desktop',
  'act',
  'replay',
] as const;
export type SetupStepType = (typeof SETUP_STEP_TYPES)[number];

const knownTypes: ReadonlySet<string> = new Set(SETUP_STEP_TYPES);

/** True when `type` is a setup step type this schema validates. */
export function isKnownSetupStepType(type: string): type is SetupStepType {
  return knownTypes.has(type);
}

/** A step of a type the schema does not know: kept as it is, reported as a warning by the loader. */
export const unknownSetupStepSchema = z.looseObject({
  // Aborts on a known type, so the union reports the known type's own issues (see zod-issues.ts).
  type: z.string().refine(type => !knownTypes.has(type), {
    abort: true,
    params: CATCH_ALL_BRANCH,
    message: 'a known setup step type is validated by its own schema',
  }),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

// The unknown-type branch comes first so a missing `type` reports "required field is missing";
// a known type with bad parameters fails deeper in the second branch, which the error formatter picks.
export const setupStepSchema = z.union([unknownSetupStepSchema, knownSetupStepSchema]);

export type KnownSetupStep = z.infer<typeof knownSetupStepSchema>;
export type UnknownSetupStep = z.infer<typeof unknownSetupStepSchema>;
export type SetupStep = z.infer<typeof setupStepSchema>;
/** The step of one known type, e.g. `SetupStepOf<'download'>`. */
export type SetupStepOf<T extends SetupStepType> = Extract<KnownSetupStep, { type: T }>;

/** Narrows a parsed step to the known union (discriminated by `type`). */
export function isKnownSetupStep(stepValue: SetupStep): stepValue is KnownSetupStep {
  return knownTypes.has(stepValue.type);
}
