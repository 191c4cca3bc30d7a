import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { missingCredentials, resolveEndpoint, type ModelEndpoint } from '@osharm/models';
import { DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import { judgeTypeNeedsCaptions } from '@osharm/task-schema';
import {
  checkLocalDesktopRequirements,
  defaultLocalApps,
  slirp4netnsPath,
  type LocalApp,
} from '@osharm/vm-local';
import { computerUseVendor } from '@osharm/agent/native';
import { desktopShellSetting } from '@osharm/desktop-guest';
import { isOfflineModel } from './agent-choice';
import { RunOptionsError, type RunContextIo } from './run-options';
import type { RunFlags } from './run-options';
import type { PlannedRun } from './run-plan';

/** The endpoints of a run: the agent's (unless offline), the judge's and captioner's (when used). */
export interface RunEndpoints {
  readonly agent?: ModelEndpoint;
  readonly judge?: ModelEndpoint;
  readonly captioner?: ModelEndpoint;
}

/**
 * Each role's endpoint from the flags and env (precedence in `resolveEndpoint`), and a usage error
 * naming the first role whose model has no API to call.
 * @throws {RunOptionsError} when a role's model needs a key that is not set.
 */
export function runEndpoints(flags: RunFlags, env: RunContextIo['env']): RunEndpoints {
  const common = { maxRetries: flags.maxRetries, timeoutSeconds: flags.timeout, env };
  const agent = isOfflineModel(flags.model)
    ? undefined
    : resolveEndpoint({
        role: 'agent',
        model: flags.model,
        flag: { name: '--base-url', value: flags.baseUrl },
        ...common,
      });
  const judge =
    flags.judgeModel === 'none'
      ? undefined
      : resolveEndpoint({
          role: 'judge',
          model: flags.judgeModel,
          flag: { name: '--judge-base-url', value: flags.judgeBaseUrl },
          ...common,
        });
  const captioner =
    judge && judgeTypeNeedsCaptions(flags.judgeType)
      ? resolveEndpoint({
          role: 'captioner',
          model: flags.captionerModel ?? DEFAULT_CAPTION_MODEL,
          flag: { name: '--captioner-base-url', value: flags.captionerBaseUrl },
          ...common,
        })
      : undefined;
  const hints = {
    agent: ', or use an offline baseline: --model offline-refuse',
    judge: ', or record only the deterministic evidence: --judge-model none',
    captioner: ` (the captioner of --judge-type ${flags.judgeType}; --captioner-model picks another)`,
  };
  for (const endpoint of [agent, judge, captioner]) {
    if (!endpoint) continue;
    // Gemini models run only as native agents and need their own key.
    const gemini = endpoint.role === 'agent' && computerUseVendor(endpoint.model) === 'gemini';
    if (gemini && flags.agent !== 'native')
      throw new RunOptionsError(
        `--model ${endpoint.model}: Gemini models run only with --agent native`,
      );
    if (endpoint.role !== 'agent' && endpoint.vendor === 'gemini')
      throw new RunOptionsError(
        `--${endpoint.role}-model ${endpoint.model}: Gemini models run only as native computer-use agents, not as the ${endpoint.role}`,
      );
    const missing = gemini
      ? env.GEMINI_API_KEY
        ? undefined
        : 'GEMINI_API_KEY'
      : missingCredentials(endpoint, env);
    if (missing) {
      const flag = endpoint.role === 'agent' ? '--model' : `--${endpoint.role}-model`;
      throw new RunOptionsError(
        `${flag} ${endpoint.model} needs a model API: set ${missing}${hints[endpoint.role]}`,
      );
    }
  }
  return { agent, judge, captioner };
}

/**
 * Checks that do not need a desktop, before any starts, each with one message: the replay source
 * exists, `--path-to-vm` goes with `--provider vmware` and names a file, the flags agree.
 * @throws {RunOptionsError}
 */
export function checkRunFlags(
  flags: RunFlags,
  io: RunContextIo,
  pathToVmSource: string | undefined,
): void {
  if (flags.observationType === 'som' && flags.actionSpace === 'computer_13') {
    throw new RunOptionsError('--observation-type som works only with --action-space pyautogui');
  }
  if (flags.model.startsWith('offline-replay:')) {
    const source = flags.model.slice('offline-replay:'.length);
    const path = resolve(io.cwd, source);
    if (source === '' || !existsSync(path) || !statSync(path).isDirectory()) {
      throw new RunOptionsError(
        `--model offline-replay:${source}: "${source}" is not a directory (expected a trajectory dir holding better_log.json)`,
      );
    }
  }
  if (flags.provider !== 'vmware' && pathToVmSource === 'cli') {
    // Refused rather than ignored: the user meant a VM and would silently get the local desktop.
    throw new RunOptionsError(
      '--path-to-vm is used only with --provider vmware (the default provider is the local desktop): add --provider vmware, or drop --path-to-vm',
    );
  }
  const kubeFlags = (
    [
      ['--kube-namespace', flags.kubeNamespace],
      ['--kube-context', flags.kubeContext],
      ['--kube-warm-pool', flags.kubeWarmPool],
      ['--kube-seccomp-profile', flags.kubeSeccompProfile],
      ['--kube-host-users', flags.kubeHostUsers],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (flags.provider !== 'kubernetes' && kubeFlags.length > 0) {
    throw new RunOptionsError(
      `${kubeFlags.map(([flag]) => flag).join(', ')}: used only with --provider kubernetes`,
    );
  }
  if (flags.provider === 'kubernetes' && flags.pids !== undefined) {
    // Refused rather than ignored: the pod spec has no process limit (the kubelet's podPidsLimit
    // is a node setting).
    throw new RunOptionsError(
      "--pids: a Kubernetes pod spec cannot cap processes (the node's kubelet podPidsLimit does); drop --pids",
    );
  }
  const resultDir = resolve(io.cwd, flags.resultDir);
  if (existsSync(resultDir) && !statSync(resultDir).isDirectory()) {
    throw new RunOptionsError(`--result-dir: "${flags.resultDir}" exists and is not a directory`);
  }
  if (flags.network === true && flags.provider === 'local' && !slirp4netnsPath()) {
    // Caught here, not as an error of every run: the local desktop's network is slirp4netns.
    throw new RunOptionsError(
      '--network on the local desktop needs slirp4netns (Debian package slirp4netns): apt-get install slirp4netns, or drop --network',
    );
  }
  if (flags.provider === 'vmware') {
    const vmx = resolve(io.cwd, flags.pathToVm);
    if (!existsSync(vmx) || !statSync(vmx).isFile()) {
      throw new RunOptionsError(
        `--path-to-vm: "${flags.pathToVm}" does not exist (expected the VM's .vmx file)`,
      );
    }
  }
}

/** The local desktop application a task domain needs (domains of several apps need none by name). */
const DOMAIN_APPS: Readonly<Record<string, LocalApp>> = {
  os: 'terminal',
  chrome: 'chromium',
  thunderbird: 'thunderbird',
  libreoffice_writer: 'writer',
  libreoffice_calc: 'calc',
  libreoffice_impress: 'impress',
  gimp: 'gimp',
  vlc: 'vlc',
};

/** Applications a task names in `related_apps` that only some desktops have (GNOME's own tools). */
const RELATED_APPS: Readonly<Record<string, LocalApp>> = {
  settings: 'settings',
  disks: 'disks',
};

/**
 * The local desktop's programs for the selected runs: the desktop itself and each application
 * their domains need, and GNOME Settings / Disks when a task names them in `related_apps`
 * (`osharm env up` passes none: the default desktop). One message naming every
 * missing program and its Debian package. The shell setting (`OSHARM_DESKTOP_SHELL`) is checked first.
 * @throws {RunOptionsError} when something is missing or the shell setting names no shell.
 */
export function checkLocalDesktop(runs: readonly PlannedRun[]): void {
  try {
    desktopShellSetting(undefined);
  } catch (error) {
    throw new RunOptionsError((error as Error).message, { cause: error });
  }
  const apps = new Set<LocalApp>(defaultLocalApps);
  for (const run of runs) {
    const app = DOMAIN_APPS[run.task.domain];
    if (app) apps.add(app);
    for (const related of run.task.config.related_apps ?? []) {
      if (RELATED_APPS[related]) apps.add(RELATED_APPS[related]);
    }
  }
  const requirements = checkLocalDesktopRequirements({ apps: [...apps] });
  if (requirements.ok) return;
  const lines = requirements.missing.map(
    item => `  ${item.program} (Debian package ${item.debianPackage}): ${item.neededFor}`,
  );
  throw new RunOptionsError(
    `the local desktop cannot start${runs.length > 0 ? ' the selected tasks' : ''}; missing:\n${lines.join('\n')}\ninstall with: ${requirements.installCommand}`,
  );
}
