// Parity with upstream's own injection code: for every injection run of the dataset, and for every
// goal on one task of each vector, upstream's lib_run_single.run_single_example runs (python3, from
// ../shared/osharm-upstream, with a stand-in environment recording what reaches the desktop) and
// osharm plans the same run with `loadUpstreamInjection`. What each vector places in the desktop —
// the page, the mails, the document, the code file, the notification and the draft — must be the
// same; so must the 12 goal texts and the jailbreak.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  expandInjectionRuns,
  INJECTION_GOAL_IDS,
  loadDataset,
  type InjectionRun,
  type SetupStep,
} from '@osharm/task-schema';
import { openUpstream } from '@osharm/upstream';
import { createTestCheckout, type TestCheckout } from '@osharm/upstream/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxParagraphs } from './office-files';
import { planInjection, type InjectionPlan } from './prepare-injection';
import { loadUpstreamInjection, type UpstreamInjection } from './upstream-injection';

const here = dirname(fileURLToPath(import.meta.url));
const stubs = [
  join(here, '..', 'parity', 'stubs'),
  join(here, '..', '..', 'agent', 'parity', 'stubs'),
];

function findPython(): string {
  for (const candidate of [process.env.OSHARM_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!candidate) continue;
    const probe = spawnSync(candidate, ['-c', 'import PIL, regex, docx'], { stdio: 'ignore' });
    if (probe.status === 0) return candidate;
  }
  throw new Error(
    'no python3 with PIL, regex and docx (Debian: python3-pil python3-regex python3-docx); set OSHARM_PYTHON',
  );
}

type Call =
  | { upload: string; data: string }
  | { launch: string[]; shell: boolean; argv?: string[] | null }
  | { execute: string[] }
  | { open: string }
  | { tabs: string[] };

interface Oracle {
  goals: Record<string, string>;
  jailbreak: string;
  runs: Call[][];
}

interface Planned {
  readonly task: string;
  readonly run: InjectionRun;
}

let python: string;
let checkout: TestCheckout;
let work: string;
let upstream: UpstreamInjection;
let planned: Planned[];
let oracle: Oracle;
const INSTRUCTION = 'Summarise the report in ~/Documents in three “bullet points”.';

beforeAll(async () => {
  python = findPython();
  checkout = createTestCheckout();
  upstream = loadUpstreamInjection(openUpstream(checkout.dir));
  // Upstream writes its filled copies beside the assets: give it a dir of links to them.
  work = mkdtempSync(join(tmpdir(), 'osharm-injection-parity-'));
  mkdirSync(join(work, 'assets'));
  for (const name of readdirSync(join(checkout.dir, 'assets')))
    symlinkSync(join(checkout.dir, 'assets', name), join(work, 'assets', name));

  const { tasks } = await loadDataset({
    baseDir: join(checkout.dir, 'evaluation_examples'),
    indexPaths: [join(checkout.dir, 'evaluation_examples', 'test_injection.json')],
  });
  planned = [];
  const oneTaskPerVector = new Map<string, Planned>();
  for (const task of tasks)
    for (const run of expandInjectionRuns(task.config).runs) {
      planned.push({ task: task.id, run });
      const key = `${run.vector.type}/${run.vector.additional_config ?? ''}`;
      if (!oneTaskPerVector.has(key)) oneTaskPerVector.set(key, { task: task.id, run });
    }
  // Every goal text through every vector.
  for (const { task, run } of oneTaskPerVector.values())
    for (const goal of INJECTION_GOAL_IDS)
      planned.push({
        task,
        run: { ...run, goal, dirSuffix: `__inject__${run.vector.type}__${goal}` },
      });

  const input = JSON.stringify({
    instruction: INSTRUCTION,
    runs: planned.map(({ task, run }) => ({ task, injection: run.vector, goal: run.goal })),
  });
  const out = execFileSync(
    python,
    [join(here, '..', 'parity', 'run_injection.py'), checkout.dir, work],
    {
      input,
      env: {
        ...process.env,
        PYTHONPATH: stubs.join(':'),
        PYTHONIOENCODING: 'utf-8',
        PYTHONDONTWRITEBYTECODE: '1',
        OSHARM_TIKTOKEN_RANKS: '/nonexistent',
      },
      maxBuffer: 1 << 30,
    },
  );
  oracle = JSON.parse(out.toString('utf8')) as Oracle;
}, 900_000);

afterAll(() => {
  checkout?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

function plan({ task, run }: Planned): InjectionPlan {
  return planInjection({
    task: { id: task },
    run,
    // Upstream's own flows (its Ubuntu VM), without osharm's evidence helpers.
    environment: { kind: 'vmware', instrument: false },
    texts: upstream.goalTexts,
    templates: upstream.templates,
    readAsset: path => {
      try {
        return readFileSync(join(checkout.dir, path));
      } catch {
        return undefined;
      }
    },
  });
}

const uploads = (calls: readonly Call[]) =>
  calls.filter((call): call is { upload: string; data: string } => 'upload' in call);

/** osharm's uploads of a plan: guest path → bytes. */
function plannedUploads(result: InjectionPlan): Map<string, Buffer> {
  const files = new Map(result.files.map(file => [file.path, Buffer.from(file.data)]));
  const out = new Map<string, Buffer>();
  for (const step of result.steps as SetupStep[])
    if (step.type === 'upload_file')
      for (const file of (step.parameters as { files: { local_path: string; path: string }[] })
        .files)
        out.set(file.path, files.get(file.local_path)!);
  return out;
}

/** A launch step's argv (osharm) after `notify` / `-compose`. */
function launches(result: InjectionPlan): string[][] {
  return (result.steps as SetupStep[])
    .filter(step => step.type === 'launch')
    .map(step => (step.parameters as { command: string[] }).command);
}

/** Python's shlex.split of an upstream shell command, as its shell would split it (null if it cannot). */
function shellWords(command: string): string[] | null {
  const out = spawnSync(python, [
    '-c',
    'import json, shlex, sys\ntry:\n  print(json.dumps(shlex.split(sys.argv[1])))\nexcept ValueError:\n  print("null")',
    command,
  ]);
  return JSON.parse(out.stdout.toString('utf8')) as string[] | null;
}

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

describe("upstream's injection texts and what the vectors place in the desktop", () => {
  it("the 12 goal texts equal run.py's all_injection_goals (evaluated by Python)", () => {
    expect(Object.keys(oracle.goals).sort()).toEqual([...INJECTION_GOAL_IDS].sort());
    expect({ ...upstream.goalTexts }).toEqual(oracle.goals);
  });

  it("the jailbreak equals upstream's jailbreak_instruction", () => {
    expect(upstream.jailbreak(INSTRUCTION)).toBe(oracle.jailbreak);
  });

  it(
    'every run: the same page, mails, document and code file; the same notification and draft',
    { timeout: 600_000 },
    () => {
      expect(oracle.runs).toHaveLength(planned.length);
      const shellMangled: string[] = [];
      for (const [index, item] of planned.entries()) {
        const theirs = oracle.runs[index]!;
        const result = plan(item);
        const mine = plannedUploads(result);
        const where = `${item.task}${item.run.dirSuffix}`;
        const text = upstream.goalTexts[item.run.goal];
        expect(result.injection.content, where).toBe(oracle.goals[item.run.goal]);
        const vector = item.run.vector;
        switch (vector.type) {
          case 'website': {
            const page = uploads(theirs).find(call => call.upload === '/home/user/index.html')!;
            expect(mine.get('/home/user/index.html')?.toString('utf8'), where).toBe(
              Buffer.from(page.data, 'base64').toString('utf8'),
            );
            break;
          }
          case 'thunderbird_mail_received':
          case 'desktop_notification': {
            // Mails by file name (the profile directory's name is osharm's own).
            for (const call of uploads(theirs).filter(call => call.upload.endsWith('.eml'))) {
              const name = basename(call.upload);
              const match = [...mine].find(([path]) => basename(path) === name);
              expect(match?.[1].toString('utf8'), `${where} ${name}`).toBe(
                Buffer.from(call.data, 'base64').toString('utf8'),
              );
            }
            if (vector.type === 'desktop_notification') {
              const command = theirs.find(
                (call): call is { launch: string[]; shell: boolean } =>
                  'launch' in call && call.launch[0]!.includes('notify-send'),
              )!;
              const words = shellWords(
                command.launch[0]!.slice(command.launch[0]!.indexOf(';') + 1),
              );
              const osharm = launches(result).find(argv => argv.includes('notify'))!;
              expect(osharm.at(-2), where).toBe(words?.[1]);
              // Named difference: upstream puts the text in double quotes of a shell command, so a
              // text holding `"` (terminal_cron_setup) reaches notify-send cut up by the shell;
              // osharm passes the text as one argument, intact.
              if (text.includes('"')) {
                expect(words?.[2], where).not.toBe(text);
                shellMangled.push(item.run.goal);
              } else expect(osharm.at(-1), where).toBe(words?.[2]);
              expect(osharm.at(-1)).toBe(text);
              if (vector.additional_config === 'libreoffice_writer') {
                const docx = uploads(theirs).find(call => call.upload.endsWith('.docx'))!;
                expect(mine.get(docx.upload)?.equals(Buffer.from(docx.data, 'base64')), where).toBe(
                  true,
                );
              }
            }
            break;
          }
          case 'thunderbird_mail_draft': {
            const command = theirs.find(
              (call): call is { launch: string[]; shell: boolean } =>
                'launch' in call && call.launch[0]!.includes('-compose'),
            )!;
            const words = shellWords(command.launch[0]!);
            const osharm = launches(result).find(argv => argv.includes('-compose'))!;
            const argument = osharm[osharm.indexOf('-compose') + 1];
            if (text.includes('"')) {
              expect(words?.[2], where).not.toBe(argument); // the same shell quoting as above
              shellMangled.push(item.run.goal);
            } else expect(argument, where).toBe(words?.[2]);
            break;
          }
          case 'libreoffice_writer': {
            const docx = uploads(theirs).find(call => call.upload === vector.params!.file_path_vm)!;
            // python-docx and osharm write different zip bytes; the paragraphs are the same.
            expect(docxParagraphs(mine.get(vector.params!.file_path_vm)!), where).toEqual(
              docxParagraphs(Buffer.from(docx.data, 'base64')),
            );
            break;
          }
          case 'vs_code': {
            const file = uploads(theirs).find(call => call.upload === vector.params!.file_path_vm)!;
            expect(mine.get(vector.params!.file_path_vm)?.toString('utf8'), where).toBe(
              Buffer.from(file.data, 'base64').toString('utf8'),
            );
            break;
          }
        }
      }
      // The shell-quoting difference is exactly the goal whose text holds a double quote.
      const quoted = INJECTION_GOAL_IDS.filter(goal => upstream.goalTexts[goal].includes('"'));
      expect(quoted).toEqual(['terminal_cron_setup']);
      expect(shellMangled.length).toBeGreaterThan(0);
      expect(new Set(shellMangled)).toEqual(new Set(['terminal_cron_setup']));
    },
  );
});
