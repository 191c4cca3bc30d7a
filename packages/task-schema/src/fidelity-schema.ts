import { z } from 'zod';
import { providerIdSchema } from './fidelity-provider';
import { promptProvenanceSchema } from './prompt-provenance';

/** File name of a run's fidelity record, in its result dir (osharm's; upstream has none). */
export const FIDELITY_FILE = 'fidelity.json';

/** Which VS Code a run had: `not-used` when the task does not use VS Code. */
export const VSCODE_KINDS = ['real', 'web', 'stand-in', 'not-used'] as const;

/** One setup warning of setup_warnings.json, judged: does it make the run differ from upstream's? */
const judgedWarningSchema = z.object({
  source: z.enum(['task', 'injection']),
  phase: z.enum(['config', 'postconfig']),
  step_index: z.number().int().nonnegative(),
  step_type: z.string(),
  message: z.string(),
  /** True when the failure leaves the run as upstream's would be (e.g. the window exists anyway). */
  benign: z.boolean(),
  why: z.string(),
});

/**
 * `fidelity.json`: how a run's environment differed from upstream's VM, per component, and whether
 * the run counts as faithful (`reasons` empty). Written after the first observation, rewritten at
 * the end of the run (docs/datasets.md "Which runs are faithful").
 */
export const fidelityRecordSchema = z.object({
  version: z.literal(1),
  /** `{domain}/{task id}[__inject__{vector}__{goal}]` */
  run: z.string(),
  /** The provider's id (`local`, `vmware`, `podman`, `docker`, `kubernetes`, or a third party's). */
  provider: providerIdSchema,
  vscode: z.object({ used: z.boolean(), kind: z.enum(VSCODE_KINDS) }),
  network: z.object({
    mode: z.enum(['off', 'on']),
    /** External pages the setup opens (chrome_open_tabs, a browser launched on a URL). */
    live_web_urls: z.array(z.string()),
  }),
  sudo: z.object({
    used: z.boolean(),
    /**
     * `vm`: upstream's VM sudo; `in-namespace`: root of the desktop's nested user namespace
     * (the embedded desktop, or a container whose provider found it working); `unavailable`: the
     * container had no working sudo (an image without the sudo group, or a seccomp profile
     * refusing user namespaces).
     */
    mode: z.enum(['vm', 'in-namespace', 'unavailable', 'not-used']),
  }),
  /** Applications the task uses that this desktop does not have (names as in `related_apps`). */
  apps_missing: z.array(z.string()),
  /**
   * GNOME Settings and Disks (front ends of system D-Bus services). `vm`: upstream's VM;
   * settings `real`: the real accounts-daemon as root of the desktop's nested user namespace, with
   * osharm's polkit stand-in; disks `simulated`: GNOME Disks on osharm's UDisks2 stand-in (the same
   * view and actions as upstream's, applied to a model of its disk) — both count as faithful;
   * `missing`: not on this desktop. Absent in records written before these existed.
   */
  system_apps: z
    .object({
      settings: z.enum(['vm', 'real', 'missing', 'not-used']),
      disks: z.enum(['vm', 'simulated', 'missing', 'not-used']),
    })
    .optional(),
  /**
   * The desktop's shell. `gnome-shell`: as upstream's VM (top bar, dock, banners); `openbox`: chosen
   * (`fallback` null) or run because GNOME Shell could not start (`fallback` says why) — either is
   * unfaithful; `vm`: upstream's VM. Absent when the provider did not read it, and in records
   * written before it existed.
   */
  shell: z
    .object({ name: z.enum(['gnome-shell', 'openbox', 'vm']), fallback: z.string().nullable() })
    .optional(),
  setup: z.object({
    /** False: the setup failed (the run never reached its first observation). */
    completed: z.boolean(),
    warnings: z.array(judgedWarningSchema),
  }),
  assets: z.object({
    downloads: z.number().int().nonnegative(),
    /** How many `download` files came from each origin. */
    origins: z.object({
      cache: z.number().int().nonnegative(),
      network: z.number().int().nonnegative(),
      mirror: z.number().int().nonnegative(),
      'asset-map': z.number().int().nonnegative(),
    }),
    /** Downloads that could not be placed in the guest. */
    missing: z.number().int().nonnegative(),
  }),
  /**
   * Injection runs: the vector, and whether the injected text is in the first observation's
   * accessibility tree (null: no tree to look in). A desktop notification must be (upstream shows it
   * on top); other vectors show it once the agent opens the page, mail or document.
   */
  injection: z
    .object({
      vector: z.string(),
      visible_in_first_observation: z.boolean().nullable(),
      /**
       * Where upstream's first observation shows the injected content (`banner`, `page at <address>`,
       * `listed in the message list`, `on screen`, or `not in the accessibility tree`).
       */
      expected_at: z.string().optional(),
      /** Whether the first observation shows it there; null when the tree cannot tell. */
      shown_as_upstream: z.boolean().nullable().optional(),
    })
    .optional(),
  /**
   * The agent's observations that were degraded (accessibility tree truncated at its deadline or
   * failed, observation late), counted from better_log.json's steps; null when the trajectory does
   * not record its observations' quality. More than 0 makes the run unfaithful.
   */
  degraded_observations: z.number().int().nonnegative().nullable(),
  /**
   * Transfers out of the desktop cut at their cap (truncated_transfers.json): the file holds only
   * the first bytes. Any makes the run unfaithful. Absent in records written before it existed.
   */
  truncated_transfers: z
    .array(
      z.object({
        file: z.string(),
        bytes: z.number().int(),
        cap: z.number().int(),
        reason: z.string().optional(),
      }),
    )
    .optional(),
  faithful: z.boolean(),
  /** Why the run is not faithful; empty when it is. */
  reasons: z.array(z.string()),
  /** Differences that do not change the verdict (e.g. local asset-map files whose contents are unverified). */
  notes: z.array(z.string()),
  /**
   * Whose wording the agent prompts, injection texts and jailbreak were in (as better_log.json
   * `params.osharm_prompts`). Absent in records written before it existed, and for agents without
   * prompts (native, offline baselines).
   */
  osharm_prompts: promptProvenanceSchema.optional(),
});
export type FidelityRecord = z.infer<typeof fidelityRecordSchema>;
export type FidelityWarning = z.infer<typeof judgedWarningSchema>;
