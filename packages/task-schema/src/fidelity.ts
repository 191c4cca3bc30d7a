import type { TruncatedTransfer } from './truncated-transfers';
import { injectionPlacement } from './fidelity-injection';
import { providerDesktop, type FidelityDesktop } from './fidelity-provider';
import type { FidelityRecord, FidelityWarning } from './fidelity-schema';
import type { SetupStep } from './setup-step-schema';
import type { SetupWarnings } from './setup-warnings-schema';
import type { TaskConfig } from './task-config-schema';

/** What {@link fidelityRecord} judges a run from. */
export interface FidelityInput {
  readonly task: TaskConfig;
  readonly domain: string;
  /** `{domain}/{task id}[__inject__…]` */
  readonly run: string;
  /** The provider's id; `desktop` (required for one that is not bundled): which desktop it runs. */
  readonly provider: string;
  readonly desktop?: FidelityDesktop;
  /** The VS Code the local desktop's `code` runs (ignored for vmware: upstream's VM has the real one). */
  readonly vscode?: 'real' | 'web' | 'stand-in';
  /** An image desktop's `sudo` as probed at start; undefined: `unavailable`. Ignored for others. */
  readonly sudo?: 'in-namespace' | 'unavailable';
  /** Whether the sandbox has network (`--network`). @default 'off' */
  readonly network?: 'off' | 'on';
  /**
   * Applications (names of {@link requiredApps}) this desktop has; undefined for vmware (upstream's
   * VM has them all).
   */
  readonly installedApps?: readonly string[];
  /** The run's setup_warnings.json; undefined when the setup did not finish. */
  readonly setup: SetupWarnings | undefined;
  /** The injection's setup steps (their warnings point into this list). */
  readonly injectionSteps?: readonly SetupStep[];
  /** The first observation's accessibility tree (to tell a benign failed `activate_window`). */
  readonly firstObservation?: string | null;
  /**
   * Injection runs: the vector id, the injected text (better_log `task.injection.content`), and
   * where upstream's first observation shows it: the address its browser shows (`website`: the
   * URL upstream opens) and the subjects its message list shows (`thunderbird_mail_received`).
   */
  readonly injection?: {
    readonly vector: string;
    readonly text: string | null;
    readonly upstreamUrl?: string;
    readonly listedSubjects?: readonly string[];
  };
  /** Host names the desktop serves itself (the local desktop: upstream's website host). */
  readonly localSites?: readonly string[];
  /** Degraded observations counted during the run, when the trajectory records them. */
  readonly degradedObservations?: number | null;
  /** Transfers out of the desktop cut at their cap (truncated_transfers.json). */
  readonly truncatedTransfers?: readonly TruncatedTransfer[];
  /**
   * The osharm desktop's shell as its provider read it at start (`fallback`: why openbox runs
   * where GNOME Shell was asked for). Undefined: not read (no record field). Ignored for vmware.
   */
  readonly shell?: { readonly name: 'gnome-shell' | 'openbox'; readonly fallback: string | null };
}

/** `related_apps` names, and domains, mapped to one application name. */
const APP_ALIASES: Readonly<Record<string, string>> = {
  vs_code: 'vscode',
  code: 'vscode',
  os: 'terminal',
  google_chrome: 'chrome',
  chromium: 'chrome',
};
/** Domains that name one application. */
const DOMAIN_APPS: Readonly<Record<string, string>> = {
  vs_code: 'vscode',
  chrome: 'chrome',
  thunderbird: 'thunderbird',
  gimp: 'gimp',
  vlc: 'vlc',
  os: 'terminal',
  libreoffice_writer: 'libreoffice_writer',
  libreoffice_calc: 'libreoffice_calc',
  libreoffice_impress: 'libreoffice_impress',
};

/** What a step runs, as one string (empty for steps that run nothing). */
function stepCommand(step: SetupStep): string {
  const parameters = (step as { parameters?: Record<string, unknown> }).parameters ?? {};
  const command = parameters.command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command)) return command.join(' ');
  return '';
}

/** True when a command line starts `code` (or runs it after `;`, `&&`, `bash -c`). */
const runsCode = (command: string) => /(^|[\s;&|'"])code(\s|$)/.test(command);

/**
 * The applications a task uses: its `related_apps`, its domain's application, and `vscode` when a
 * setup step runs `code`. Names as in `related_apps` (`vscode`, `chrome`, `settings`, `disks`, …).
 */
export function requiredApps(task: TaskConfig, domain: string): string[] {
  const apps = new Set<string>();
  for (const app of task.related_apps ?? []) apps.add(APP_ALIASES[app] ?? app);
  if (DOMAIN_APPS[domain]) apps.add(DOMAIN_APPS[domain]);
  if ((task.config ?? []).some(step => runsCode(stepCommand(step)))) apps.add('vscode');
  return [...apps].sort();
}

/** True for an http(s) URL that is not on this machine (nor one of its own `sites`). */
function external(url: string, sites: readonly string[]): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return (
      (protocol === 'http:' || protocol === 'https:') &&
      !['localhost', '127.0.0.1', '[::1]', ...sites].includes(hostname)
    );
  } catch {
    return false;
  }
}

/**
 * The external pages a setup opens in the browser (`chrome_open_tabs`, or a browser launched on a
 * URL): with no network they never load, so such a run differs from upstream's.
 */
export function liveWebUrls(
  steps: readonly SetupStep[],
  localSites: readonly string[] = [],
): string[] {
  const urls: string[] = [];
  for (const step of steps) {
    const parameters = (step as { parameters?: Record<string, unknown> }).parameters ?? {};
    if (step.type === 'chrome_open_tabs' && Array.isArray(parameters.urls_to_open)) {
      urls.push(...parameters.urls_to_open.filter((url): url is string => typeof url === 'string'));
    } else if (step.type === 'launch' || step.type === 'execute' || step.type === 'command') {
      const command = stepCommand(step);
      if (/chrom|firefox/.test(command)) urls.push(...(command.match(/https?:\/\/\S+/g) ?? []));
    }
  }
  return [...new Set(urls.filter(url => external(url, localSites)))];
}

/** True when the run's injection shows Thunderbird (its mail vectors, or a notification over it). */
function thunderbirdVector(input: FidelityInput): boolean {
  const steps = input.injectionSteps ?? [];
  return steps.some(step => /\bthunderbird\b/.test(stepCommand(step)));
}

/** True when the task's setup or instruction uses sudo. */
function usesSudo(task: TaskConfig, injectionSteps: readonly SetupStep[]): boolean {
  return (
    /\bsudo\b/i.test(task.instruction) ||
    [...(task.config ?? []), ...injectionSteps].some(step => /\bsudo\b/.test(stepCommand(step)))
  );
}

/**
 * Setup failures that upstream's VM has too (the task itself is broken there): recorded, but the run
 * is as upstream's. `_backdoor_doc*` unzips into ~/Downloads what it downloaded to ~/Desktop, then
 * opens a file that does not exist (so its postconfig cannot activate that file's window either,
 * unless the agent opened it). `___shell_script_permissions*` uploads VS Code's settings.json
 * and activates "Visual Studio Code" without ever starting it (upstream's snapshot has no
 * application open).
 */
const UPSTREAM_FAILURES: readonly { task: RegExp; stepType: string }[] = [
  { task: /^_backdoor_doc/, stepType: 'open' },
  { task: /^_backdoor_doc/, stepType: 'activate_window' },
  { task: /^___shell_script_permissions/, stepType: 'activate_window' },
];

/** Upstream's GNOME tools, which need a system D-Bus and its root daemons. */
const GNOME_ONLY: Readonly<Record<string, string>> = {
  settings: 'GNOME Settings',
  disks: 'GNOME Disks',
};

/**
 * Why the container image does not count as having them: the embedded desktop gives them their
 * system bus, accounts-daemon as root of its nested user namespace and the UDisks2 stand-in; the
 * container image has the same scripts but no nested namespaces were checked there.
 */
const GNOME_ONLY_WHY =
  "GNOME Settings' Users panel and GNOME Disks were checked on the embedded desktop only (the container image's system bus, accounts-daemon and UDisks2 stand-in are not)";

/** Window names upstream's apps have, and the names the local desktop's builds show instead. */
const WINDOW_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'google chrome': ['chromium'],
};

function judgeWarning(
  warning: SetupWarnings['warnings'][number],
  input: FidelityInput,
): FidelityWarning {
  const steps =
    warning.source === 'injection'
      ? (input.injectionSteps ?? [])
      : warning.phase === 'config'
        ? (input.task.config ?? [])
        : (input.task.evaluator.postconfig ?? []);
  const step = steps[warning.step_index] as
    { type: string; parameters?: Record<string, unknown> } | undefined;
  const entry = { ...warning };
  if (
    warning.source === 'task' &&
    UPSTREAM_FAILURES.some(
      known => known.task.test(input.task.id) && known.stepType === warning.step_type,
    )
  ) {
    return { ...entry, benign: true, why: "fails on upstream's VM too (the task's own paths)" };
  }
  if (warning.step_type === 'activate_window') {
    const name = step?.parameters?.window_name;
    const tree = input.firstObservation?.toLowerCase() ?? '';
    const names =
      typeof name === 'string' && name !== ''
        ? [name.toLowerCase(), ...(WINDOW_ALIASES[name.toLowerCase()] ?? [])]
        : [];
    if (names.some(candidate => tree.includes(candidate))) {
      return {
        ...entry,
        benign: true,
        why: `the window "${name}" is in the first observation's accessibility tree`,
      };
    }
    return {
      ...entry,
      benign: false,
      why: `the window${typeof name === 'string' ? ` "${name}"` : ''} is not in the first observation`,
    };
  }
  if (warning.step_type === 'chrome_open_tabs' && input.network !== 'on') {
    return { ...entry, benign: false, why: 'needs the live internet: the page did not load' };
  }
  return { ...entry, benign: false, why: "the step succeeds on upstream's VM" };
}

/**
 * How a run's environment differed from upstream's VM, per component, and the verdict: faithful when
 * no component differs in a way the agent can see. Pure: the caller gathers the facts (VS Code, apps,
 * setup_warnings.json, the first observation). @throws {Error} for a provider id of the wrong shape,
 * or one not bundled without `desktop`.
 */
export function fidelityRecord(input: FidelityInput): FidelityRecord {
  const reasons: string[] = [];
  const notes: string[] = [];
  const desktop = providerDesktop(input.provider, input.desktop);
  const local = desktop !== 'upstream-vm';
  const apps = requiredApps(input.task, input.domain);
  const injectionSteps = input.injectionSteps ?? [];

  const vscodeUsed = apps.includes('vscode');
  const vscodeKind = !vscodeUsed ? 'not-used' : local ? (input.vscode ?? 'stand-in') : 'real';
  if (vscodeKind === 'stand-in') reasons.push('VS Code is the text-editor stand-in');
  if (vscodeKind === 'web')
    notes.push("VS Code is code-server's workbench in a Chromium app window");

  const network = local ? (input.network ?? 'off') : 'on';
  const urls = liveWebUrls(
    [...(input.task.config ?? []), ...injectionSteps],
    local ? (input.localSites ?? []) : [],
  );
  if (urls.length > 0 && network === 'off') {
    reasons.push(`needs the live internet: ${urls.join(', ')}`);
  }

  const sudoUsed = usesSudo(input.task, injectionSteps);
  const sudoMode = !sudoUsed
    ? 'not-used'
    : desktop === 'embedded'
      ? 'in-namespace'
      : local
        ? (input.sudo ?? 'unavailable')
        : 'vm';
  if (sudoMode === 'unavailable') reasons.push('sudo does not work in the container image');
  if (desktop === 'image' && input.installedApps === undefined) {
    notes.push("the container image's applications were not checked");
  }

  const installed = new Set(input.installedApps ?? apps);
  const container = desktop === 'image';
  const missing = apps.filter(app =>
    container && GNOME_ONLY[app] ? true : app !== 'vscode' && !installed.has(app),
  );
  for (const app of missing) {
    reasons.push(`${GNOME_ONLY[app] ?? app} is not on this desktop`);
  }
  if (container && missing.some(app => GNOME_ONLY[app])) notes.push(GNOME_ONLY_WHY);
  const systemKind = <Kind extends 'real' | 'simulated'>(
    app: 'settings' | 'disks',
    localKind: Kind,
  ): Kind | 'not-used' | 'missing' | 'vm' =>
    !apps.includes(app) ? 'not-used' : missing.includes(app) ? 'missing' : local ? localKind : 'vm';
  const systemApps = {
    settings: systemKind('settings', 'real'),
    disks: systemKind('disks', 'simulated'),
  };
  if (systemApps.settings === 'real') {
    notes.push(
      "GNOME Settings' Users panel: the real accounts-daemon, as root of the desktop's nested user namespace (users it adds exist there only); polkit's decisions and its password dialog are osharm's stand-in",
    );
  }
  if (systemApps.disks === 'simulated') {
    notes.push(
      "GNOME Disks shows the UDisks2 stand-in's disk (upstream's layout: BIOS boot, 537 MB FAT EFI partition, ext4 root); its changes apply to that model only, nothing is written to a disk",
    );
  }

  const shell: FidelityRecord['shell'] = !local
    ? { name: 'vm', fallback: null }
    : input.shell && { name: input.shell.name, fallback: input.shell.fallback };
  if (shell?.name === 'openbox') {
    reasons.push(
      shell.fallback === null
        ? 'the desktop ran openbox (chosen), not GNOME Shell: no dock, top bar or GNOME banners'
        : `GNOME Shell did not start (${shell.fallback}): the desktop ran openbox, with no dock, top bar or GNOME banners`,
    );
  }
  // Live pages upstream's first observations show that an offline desktop cannot (notes: the
  // agent sees the application, not that page; `osharm tasks check --compare` reports them apart).
  if (local && network === 'off' && apps.includes('chrome')) {
    notes.push(
      "Chromium's new-tab page is Google's, offline: its search box and shortcuts without the live bar upstream's shows (Gmail, Images, Google apps)",
    );
  }
  if (local && network === 'off' && (apps.includes('thunderbird') || thunderbirdVector(input))) {
    notes.push(
      "Thunderbird's start page (a live page upstream's message pane shows) is off; the folder it opens on is upstream's",
    );
  }

  const warnings = (input.setup?.warnings ?? []).map(warning => judgeWarning(warning, input));
  if (!input.setup) reasons.push('the setup did not finish');
  for (const warning of warnings.filter(item => !item.benign)) {
    reasons.push(
      `setup ${warning.source} ${warning.phase}[${warning.step_index}] ${warning.step_type} failed: ${warning.why}`,
    );
  }

  const downloads = input.setup?.downloads ?? [];
  const origins = { cache: 0, network: 0, mirror: 0, 'asset-map': 0 };
  for (const download of downloads) origins[download.origin] += 1;
  const missingDownloads = downloads.filter(download => !download.uploaded).length;
  if (missingDownloads > 0) reasons.push(`${missingDownloads} download(s) not placed in the guest`);
  if (origins['asset-map'] > 0) {
    notes.push(
      `${origins['asset-map']} download(s) from local --asset-map files (their contents are the map's, e.g. stand-ins)`,
    );
  }

  let injection: FidelityRecord['injection'];
  if (input.injection) {
    const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
    const visible =
      input.firstObservation == null || input.injection.text === null
        ? null
        : squash(input.firstObservation).includes(squash(input.injection.text).slice(0, 60));
    const placement = injectionPlacement(input.injection, input.firstObservation, visible);
    injection = {
      vector: input.injection.vector,
      visible_in_first_observation: visible,
      expected_at: placement.expected,
      shown_as_upstream: placement.shown,
    };
    if (placement.shown === false) reasons.push(placement.reason);
  }

  const degraded = input.degradedObservations ?? null;
  if (degraded !== null && degraded > 0) {
    reasons.push(
      `${degraded} observation(s) the agent got were degraded (accessibility tree cut or missing, or late)`,
    );
  }

  const truncated = [...(input.truncatedTransfers ?? [])];
  for (const cut of truncated) {
    reasons.push(
      cut.reason !== undefined
        ? `${cut.file} was not handed over whole (${cut.reason}): its evaluator saw it missing`
        : `${cut.file} was cut at its cap of ${cut.cap} bytes (holds the first ${cut.bytes})`,
    );
  }

  return {
    version: 1,
    run: input.run,
    provider: input.provider,
    vscode: { used: vscodeUsed, kind: vscodeKind },
    network: { mode: network, live_web_urls: urls },
    sudo: { used: sudoUsed, mode: sudoMode },
    apps_missing: missing,
    system_apps: systemApps,
    ...(shell && { shell }),
    setup: { completed: input.setup !== undefined, warnings },
    assets: { downloads: downloads.length, origins, missing: missingDownloads },
    ...(injection && { injection }),
    degraded_observations: degraded,
    truncated_transfers: truncated,
    faithful: reasons.length === 0,
    reasons,
    notes,
  };
}
