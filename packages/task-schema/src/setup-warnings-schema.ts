import { z } from 'zod';

/** File name of a run's setup warnings, in its result dir (osharm's; upstream only logs them). */
export const SETUP_WARNINGS_FILE = 'setup_warnings.json';

/** One setup failure that upstream only logs, so the run went on (docs/packages/desktop-env.md). */
export const setupWarningSchema = z.object({
  /** Whose step: the task's `config` / `postconfig`, or the injection's setup. */
  source: z.enum(['task', 'injection']),
  phase: z.enum(['config', 'postconfig']),
  /** 0-based index of the step in its list. */
  step_index: z.number().int().nonnegative(),
  step_type: z.string(),
  message: z.string(),
});
export type SetupWarningEntry = z.infer<typeof setupWarningSchema>;

/** Where one `download` file of the setup came from (for telling a faithful run from a stand-in one). */
export const setupDownloadSchema = z.object({
  source: z.enum(['task', 'injection']),
  url: z.string(),
  guest_path: z.string(),
  /**
   * `cache`: the host cache already had it; `network`: fetched from the URL; `mirror`: from the asset
   * map's URL; `asset-map`: the asset map's local file.
   */
  origin: z.enum(['cache', 'network', 'mirror', 'asset-map']),
  /** False when the upload failed (then also a warning). */
  uploaded: z.boolean(),
});
export type SetupDownloadEntry = z.infer<typeof setupDownloadSchema>;

/**
 * One wait of the setup for a window (readiness instead of a fixed sleep): `activate_window`, and an
 * `open` / `launch` that an activation follows, wait until the window exists or the deadline passes.
 * A wait that timed out (`found: false`) is not itself a warning; the activation reports its failure.
 */
export const setupWindowWaitSchema = z.object({
  source: z.enum(['task', 'injection']),
  phase: z.enum(['config', 'postconfig']),
  /** 0-based index of the step that waited. */
  step_index: z.number().int().nonnegative(),
  step_type: z.string(),
  /** The window's name as the step gave it, or a description (e.g. "GIMP's main window"). */
  window: z.string(),
  deadline_ms: z.number().int().nonnegative(),
  waited_ms: z.number().int().nonnegative(),
  found: z.boolean(),
});
export type SetupWindowWaitEntry = z.infer<typeof setupWindowWaitSchema>;

/**
 * `setup_warnings.json`: written when the setup (task, then injection) has run, before the first
 * observation, and again after evaluation when the evaluator's postconfig added warnings. An empty
 * list: every step succeeded. No file: the setup did not finish.
 */
export const setupWarningsSchema = z.object({
  version: z.literal(1),
  warnings: z.array(setupWarningSchema),
  /** The setup's `download` files, in order (absent in files that predate it). */
  downloads: z.array(setupDownloadSchema).optional(),
  /** The setup's waits for windows, in order (absent when no step waited, and in older files). */
  window_waits: z.array(setupWindowWaitSchema).optional(),
});
export type SetupWarnings = z.infer<typeof setupWarningsSchema>;
