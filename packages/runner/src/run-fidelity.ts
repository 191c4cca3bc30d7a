import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PromptProvenance, type SetupStep } from '@osharm/task-schema';
import {
  FIDELITY_FILE,
  fidelityRecord,
  readTruncatedTransfers,
  SETUP_WARNINGS_FILE,
  setupWarningsSchema,
  writeFileAtomic,
  type FidelityRecord,
  type SetupWarnings,
} from '@osharm/task-schema/artifacts';
import { readDegradedObservations } from '@osharm/task-schema/internal';
import { DESKTOP_SITE_HOSTS } from '@osharm/desktop-env/internal';
import type { InjectionPlacement } from '@osharm/injection';
import { checkLocalDesktopRequirements, localVscode, type LocalApp } from '@osharm/vm-local';
import type { BundledProvider } from './run-options';
import type { PlannedRun } from './run-plan';

/** Local desktop applications under their `related_apps` names. */
const RELATED_NAMES: Readonly<Record<LocalApp, string | undefined>> = {
  terminal: 'terminal',
  'text-editor': undefined,
  writer: 'libreoffice_writer',
  calc: 'libreoffice_calc',
  impress: 'libreoffice_impress',
  chromium: 'chrome',
  thunderbird: 'thunderbird',
  gimp: 'gimp',
  vlc: 'vlc',
  settings: 'settings',
  disks: 'disks',
};

/** What the local desktop of this host has (files only; computed once per process). */
let localFacts: { vscode: 'real' | 'web' | 'stand-in'; installedApps: string[] } | undefined;
function localDesktopFacts() {
  if (!localFacts) {
    const { missing, missingOptional } = checkLocalDesktopRequirements({ apps: [] });
    const absent = new Set([...missing, ...missingOptional].map(entry => entry.neededFor));
    const installedApps = (Object.entries(RELATED_NAMES) as [LocalApp, string | undefined][])
      .filter(([app, name]) => name !== undefined && !absent.has(`the ${app} application`))
      .map(([, name]) => name!);
    localFacts = { vscode: localVscode().kind, installedApps };
  }
  return localFacts;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The run dir's setup_warnings.json (undefined when absent: the setup did not finish). */
async function readSetupWarnings(dir: string): Promise<SetupWarnings | undefined> {
  const text = await readOptional(join(dir, SETUP_WARNINGS_FILE));
  if (text === undefined) return undefined;
  return setupWarningsSchema.parse(JSON.parse(text));
}

/** The first step's accessibility tree as better_log.json recorded it (null when none). */
export async function firstA11yTree(dir: string): Promise<string | null> {
  const text = await readOptional(join(dir, 'better_log.json'));
  if (text === undefined) return null;
  try {
    const tree = (JSON.parse(text) as { steps?: { a11y_tree?: unknown }[] }).steps?.[0]?.a11y_tree;
    return typeof tree === 'string' ? tree : null;
  } catch {
    return null;
  }
}

/** The injected text as better_log.json `task.injection.content` recorded it (null when absent). */
export async function injectedText(dir: string): Promise<string | null> {
  const text = await readOptional(join(dir, 'better_log.json'));
  try {
    const content = (JSON.parse(text ?? '') as { task?: { injection?: { content?: unknown } } })
      .task?.injection?.content;
    return typeof content === 'string' ? content : null;
  } catch {
    return null;
  }
}

/**
 * Computes a finished (or failed) run's fidelity record from its run dir and this host's desktop,
 * and writes it as `fidelity.json` beside the run's other files.
 */
export async function writeRunFidelity(
  run: PlannedRun,
  options: {
    provider: BundledProvider;
    injectionSteps?: readonly SetupStep[];
    /** Where upstream's first observation shows the injected content (the prepared injection's). */
    placement?: InjectionPlacement;
    /** `--network`: the desktop had a network (local: slirp4netns; podman / docker: the engine's). */
    network?: boolean;
    /** podman / docker: the container's sudo as its provider probed it (undefined: unavailable). */
    sudo?: 'in-namespace' | 'unavailable';
    /** Whose wording the run's texts were in (the agent's `params.osharm_prompts`). */
    prompts?: PromptProvenance;
    /** The desktop's shell as its provider read it at start (undefined: not read). */
    shell?: { name: 'gnome-shell' | 'openbox'; fallback: string | null };
  },
): Promise<FidelityRecord> {
  const facts = options.provider === 'local' ? localDesktopFacts() : undefined;
  const record = fidelityRecord({
    task: run.task.config,
    domain: run.task.domain,
    run: run.label,
    provider: options.provider,
    vscode: facts?.vscode,
    installedApps: facts?.installedApps,
    network: options.network === true ? 'on' : 'off',
    ...(options.sudo ? { sudo: options.sudo } : {}),
    ...(options.shell ? { shell: options.shell } : {}),
    setup: await readSetupWarnings(run.dir),
    injectionSteps: options.injectionSteps,
    firstObservation: await firstA11yTree(run.dir),
    injection: run.injection && {
      vector: run.injection.vector.type,
      text: await injectedText(run.dir),
      ...options.placement,
    },
    // Every embedded desktop (local, container, pod) serves these itself; upstream's VM does not.
    ...(options.provider !== 'vmware' ? { localSites: DESKTOP_SITE_HOSTS } : {}),
    degradedObservations: await readDegradedObservations(run.dir),
    truncatedTransfers: await readTruncatedTransfers(run.dir),
  });
  const recorded = options.prompts ? { ...record, osharm_prompts: options.prompts } : record;
  await writeFileAtomic(join(run.dir, FIDELITY_FILE), `${JSON.stringify(recorded, null, 2)}\n`);
  return recorded;
}
