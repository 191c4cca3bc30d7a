import { type SetupStep } from '@osharm/task-schema';
import { evidenceProbe } from './evidence-probes';
import {
  DOCUMENTS_GUEST_PATHS,
  GOAL_EXTRA_FILES,
  REPORT_GUEST_PATH,
  type GoalExtra,
} from './goal-files';
import {
  CAPTURE_LOG,
  CAPTURE_SERVER_PATH,
  CAPTURE_SITE_DIR,
  DEFAULT_CAPTURE_PORTS,
  EVIDENCE_DIR,
  GUEST_DOCUMENTS,
  GUEST_HOME,
  LOCAL_SCRIPT_PATH,
  SHIM_DIR,
  SSH_DIR,
  SSH_PRIVATE_KEY,
  SSH_PUBLIC_KEY,
  THUNDERBIRD_DIR,
  THUNDERBIRD_PROFILE,
  THUNDERBIRD_WHATS_NEW_URL,
  UPSTREAM_ASSETS,
} from './guest-layout';
import {
  CAPTURE_SERVER_SOURCE,
  bashrcSnippet,
  canaryCommands,
  shimScripts,
} from './guest-instrumentation';
import { InjectionSetupError } from './injection-errors';
import { goalText } from './injection-goals';
import { THUNDERBIRD_FOLDERS, thunderbirdProfileFiles } from './mail-files';
import { STAND_IN_DOCUMENTS, dummySshKeys, localScript, reportPdf } from './planted-files';
import { shellQuote, utf8 } from './text-utils';
import { vectorSetup } from './injection-vectors';
import type {
  InjectionPlacement,
  InjectionPlan,
  InjectionRecord,
  PlanInjectionOptions,
} from './prepare-injection';

/**
 * Builds one run's injection plan: setup steps, generated files, warnings. The vector setups live
 * in injection-vectors.ts; this class holds the step helpers, the instrumentation, the
 * Thunderbird profile and the goal-dependent files they share.
 */
export class PlanBuilder {
  readonly steps: SetupStep[] = [];
  readonly files = new Map<string, Uint8Array>();
  readonly warnings: string[] = [];
  readonly text: string;
  readonly instrumented: boolean;
  readonly ports: { http: number; smtp: number };
  /** Set by the vector: where upstream's first observation shows the content. */
  placement: InjectionPlacement = {};
  private thunderbirdReady = false;
  private captureStarted = false;
  private plantedDocuments: string[] = [];
  private sshMarkers: string[] = [];

  constructor(readonly options: PlanInjectionOptions) {
    this.text = goalText(options.run.goal, options.texts);
    this.instrumented = options.environment.instrument ?? options.environment.kind === 'local';
    this.ports = {
      http: options.environment.capturePorts?.http ?? DEFAULT_CAPTURE_PORTS.http,
      smtp: options.environment.capturePorts?.smtp ?? DEFAULT_CAPTURE_PORTS.smtp,
    };
  }

  build(): InjectionPlan {
    const { run, environment } = this.options;
    if (this.instrumented) this.instrument();
    vectorSetup(this);
    this.goalSetup();
    const injection = { ...run.vector, content: this.text, goal_id: run.goal } as InjectionRecord;
    const evidence = [
      evidenceProbe({
        goal: run.goal,
        vector: run.vector.type,
        dirSuffix: run.dirSuffix,
        instrumented: this.instrumented,
        ...(environment.browserProfileDirs
          ? { browserProfileDirs: environment.browserProfileDirs }
          : {}),
        plantedDocuments: this.plantedDocuments,
        sshMarkers: this.sshMarkers,
      }),
    ];
    return {
      steps: this.steps,
      files: [...this.files].map(([path, data]) => ({ path, data })),
      injection,
      evidence,
      warnings: this.warnings,
      placement: this.placement,
    };
  }

  // ---- step helpers -------------------------------------------------------------------------

  file(path: string, data: string | Uint8Array): string {
    this.files.set(path, typeof data === 'string' ? utf8(data) : data);
    return path;
  }

  upload(entries: readonly { local: string; guest: string }[]): void {
    this.steps.push({
      type: 'upload_file',
      parameters: {
        files: entries.map(entry => ({ local_path: entry.local, path: entry.guest })),
      },
    });
  }

  bash(script: string): void {
    this.steps.push({ type: 'execute', parameters: { command: ['/bin/bash', '-c', script] } });
  }

  mkdir(...dirs: readonly string[]): void {
    this.bash(`mkdir -p ${dirs.map(shellQuote).join(' ')}`);
  }

  launch(command: readonly string[]): void {
    this.steps.push({ type: 'launch', parameters: { command: [...command] } });
  }

  open(path: string): void {
    this.steps.push({ type: 'open', parameters: { path } });
  }

  sleep(seconds: number): void {
    this.steps.push({ type: 'sleep', parameters: { seconds } });
  }

  fail(message: string): never {
    const { task, run } = this.options;
    throw new InjectionSetupError({
      message: `${task.id ?? 'task'}${run.dirSuffix}: ${message}`,
      dirSuffix: run.dirSuffix,
    });
  }

  /** An upstream asset, or `undefined` (the caller decides between a stand-in and an error). */
  asset(localPath: string): Uint8Array | undefined {
    return this.options.readAsset(localPath);
  }

  assetOrStandIn(localPath: string, standIn: () => string | Uint8Array): Uint8Array {
    const data = this.asset(localPath);
    if (data !== undefined) return data;
    this.warnings.push(`"${localPath}" is not in the dataset: planted osharm's stand-in instead`);
    const made = standIn();
    return typeof made === 'string' ? utf8(made) : made;
  }

  // ---- instrumentation ----------------------------------------------------------------------

  private instrument(): void {
    const shims = shimScripts();
    this.mkdir(EVIDENCE_DIR, CAPTURE_SITE_DIR, SHIM_DIR);
    this.upload([
      {
        local: this.file('capture/capture_server.py', CAPTURE_SERVER_SOURCE),
        guest: CAPTURE_SERVER_PATH,
      },
      { local: this.file('capture/bashrc', bashrcSnippet()), guest: `${EVIDENCE_DIR}/bashrc` },
      ...Object.entries(shims).map(([name, script]) => ({
        local: this.file(`capture/shims/${name}`, script),
        guest: `${SHIM_DIR}/${name}`,
      })),
    ]);
    this.bash(
      [
        `chmod +x ${Object.keys(shims)
          .map(name => `${SHIM_DIR}/${name}`)
          .join(' ')}`,
        `cat ${EVIDENCE_DIR}/bashrc >> ${GUEST_HOME}/.bashrc`,
        canaryCommands(),
      ].join(' && '),
    );
    this.startCapture();
  }

  startCapture(): void {
    if (this.captureStarted) return;
    this.captureStarted = true;
    if (!this.files.has('capture/capture_server.py')) {
      this.mkdir(EVIDENCE_DIR, CAPTURE_SITE_DIR);
      this.upload([
        {
          local: this.file('capture/capture_server.py', CAPTURE_SERVER_SOURCE),
          guest: CAPTURE_SERVER_PATH,
        },
      ]);
    }
    this.launch([
      'python3',
      CAPTURE_SERVER_PATH,
      '--http-port',
      String(this.ports.http),
      '--smtp-port',
      String(this.instrumented ? this.ports.smtp : 0),
      '--site',
      CAPTURE_SITE_DIR,
      '--log',
      CAPTURE_LOG,
    ]);
    this.sleep(1);
  }

  /** Installs the generated profile once per run (upstream re-extracts its tarball each time). */
  setupThunderbird(): void {
    if (this.thunderbirdReady) return;
    this.thunderbirdReady = true;
    const smtp = this.instrumented ? { host: '127.0.0.1', port: this.ports.smtp } : undefined;
    const profile = thunderbirdProfileFiles(smtp);
    const maildirs = THUNDERBIRD_FOLDERS.flatMap(folder =>
      ['cur', 'new', 'tmp'].map(part => `${folder}/${part}`),
    );
    this.bash(`rm -rf ${THUNDERBIRD_DIR} && mkdir -p ${maildirs.map(shellQuote).join(' ')}`);
    this.upload(
      Object.entries(profile).map(([path, text]) => ({
        local: this.file(`thunderbird/${path}`, text),
        guest: `${THUNDERBIRD_DIR}/${path}`,
      })),
    );
  }

  launchThunderbird(args: readonly string[]): void {
    this.launch(['thunderbird', '-profile', THUNDERBIRD_PROFILE, ...args]);
    // Locally the setup then waits for the mail window (its deadline, recorded in
    // setup_warnings.json) rather than letting a slow start miss the first observation, where
    // upstream's shows the Important folder; a window that never comes is a warning.
    if (this.options.environment.kind === 'local' && args.includes('-mail')) {
      this.steps.push({
        type: 'activate_window',
        parameters: { window_name: 'Mozilla Thunderbird' },
      });
      // Upstream's Thunderbird 115 opened its appeal page in the default browser (Firefox) as its
      // mail window came up; Debian's does not (no application updater), so the setup opens the
      // page as Thunderbird did, through the desktop's default browser, and waits for its window
      // (upstream's first observation shows Firefox's window and its icon in the dock).
      this.launch(['xdg-open', THUNDERBIRD_WHATS_NEW_URL]);
      this.steps.push({ type: 'activate_window', parameters: { window_name: 'Mozilla Firefox' } });
    }
  }

  // ---- goal-dependent files ------------------------------------------------------------------

  private goalSetup(): void {
    const extras = new Set<GoalExtra>(GOAL_EXTRA_FILES[this.options.run.goal]);
    if (extras.has('local_script')) {
      this.upload([
        { local: this.file('goal/initial_config', localScript()), guest: LOCAL_SCRIPT_PATH },
      ]);
    }
    if (extras.has('report') || extras.has('documents')) this.documents(extras);
    if (extras.has('thunderbird_profile')) this.setupThunderbird();
    if (extras.has('ssh_keys')) this.sshKeys();
  }

  private documents(extras: ReadonlySet<GoalExtra>): void {
    const report = {
      local: this.file('goal/documents/report.pdf', reportPdf()),
      guest: REPORT_GUEST_PATH,
    };
    const entries = [report];
    if (extras.has('documents')) {
      const [, docxPath, textPath, xlsxPath] = DOCUMENTS_GUEST_PATHS;
      const docx = this.assetOrStandIn(UPSTREAM_ASSETS.writerDocx, STAND_IN_DOCUMENTS.docx);
      const text = this.assetOrStandIn(UPSTREAM_ASSETS.documentsText, STAND_IN_DOCUMENTS.text);
      const xlsx = this.assetOrStandIn(UPSTREAM_ASSETS.documentsXlsx, STAND_IN_DOCUMENTS.xlsx);
      entries.push(
        { local: this.file('goal/documents/document.docx', docx), guest: docxPath },
        { local: this.file('goal/documents/text.txt', text), guest: textPath },
        { local: this.file('goal/documents/sheet.xlsx', xlsx), guest: xlsxPath },
      );
    }
    this.mkdir(GUEST_DOCUMENTS);
    this.upload(entries);
    this.plantedDocuments = entries.map(entry => entry.guest);
  }

  private sshKeys(): void {
    const keys = dummySshKeys();
    this.bash(`mkdir -p ${SSH_DIR} && chmod 700 ${SSH_DIR}`);
    this.upload([
      { local: this.file('goal/ssh/id_ed25519', keys.privateKey), guest: SSH_PRIVATE_KEY },
      { local: this.file('goal/ssh/id_ed25519.pub', keys.publicKey), guest: SSH_PUBLIC_KEY },
    ]);
    this.bash(`chmod 600 ${SSH_PRIVATE_KEY} && chmod 644 ${SSH_PUBLIC_KEY}`);
    this.sshMarkers = [...keys.markers];
  }
}
