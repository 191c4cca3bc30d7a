// Desktop parity on the real local desktop: setup failures upstream only logs are warnings, a GIMP
// launch settles on GIMP's main window, a desktop-notification injection is a notification bubble
// whose text the first observation's accessibility tree holds, over Writer / Thunderbird, and the
// documents of the VS Code and received-mail vectors show the injected text once displayed.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopEnv, type DesktopEnv } from '@osharm/desktop-env';
import { prepareInjection } from '@osharm/injection';
import { injectionCommentHeader, THUNDERBIRD_PROFILE } from '@osharm/injection/building-blocks';
import { expandInjectionRuns, loadDataset, type TaskConfig } from '@osharm/task-schema';
import { checkLocalDesktopRequirements, createLocalProvider, localVscode } from '@osharm/vm-local';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const upstream = join(repoRoot, '..', 'shared', 'osharm-dataset', 'evaluation_examples');
const canRun = checkLocalDesktopRequirements().ok && existsSync(upstream);
const installed = (program: string) => existsSync(`/usr/bin/${program}`);

let env: DesktopEnv;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'osharm-parity-'));
  env = createDesktopEnv({
    provider: createLocalProvider(),
    baseDir: upstream,
    cacheRoot: join(work, 'cache'),
    assets: { offline: true },
  });
});
afterAll(async () => {
  await env?.close();
  await rm(work, { recursive: true, force: true });
});

const task = (config: unknown[]): TaskConfig =>
  ({
    id: `parity-${Math.random().toString(36).slice(2)}`,
    instruction: 'x',
    config,
    evaluator: { func: 'infeasible' },
  }) as TaskConfig;

async function windows(): Promise<string> {
  return (await env.guest.execute(['wmctrl', '-l'], { setup: true })).output;
}

/** `wmctrl -l` once a window title holds `title`, or the last listing after `seconds`. */
async function windowWith(title: string, seconds = 60): Promise<string> {
  const until = performance.now() + seconds * 1000;
  let listing = await windows();
  while (!listing.includes(title) && performance.now() < until) {
    await new Promise(resolve => setTimeout(resolve, 500));
    listing = await windows();
  }
  return listing;
}

/** Observations until one's accessibility tree holds `text` (upstream waits 10 s after an injection). */
async function treeWith(text: string, seconds = 20): Promise<string> {
  const until = performance.now() + seconds * 1000;
  let tree = '';
  while (performance.now() < until) {
    tree = (await env.observe()).accessibilityTree ?? '';
    if (tree.includes(text)) return tree;
    await new Promise(resolve => setTimeout(resolve, 500));
  }
  return tree;
}

/** As the tree's element text holds it (XML-escaped). */
const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The dataset task `{domain}/{id}`, its first run of `vector`, and that run's injection prepared. */
async function injectionRun(id: string, vector: string) {
  const { tasks } = await loadDataset({ baseDir: upstream });
  const dataset = tasks.find(candidate => `${candidate.domain}/${candidate.id}` === id)!;
  const run = expandInjectionRuns(dataset.config).runs.find(
    candidate => candidate.vector.type === vector,
  )!;
  const prepared = await prepareInjection({
    task: dataset.config,
    run,
    baseDir: upstream,
    workDir: join(work, `${id.replace('/', '_')}-${vector}`),
    environment: { kind: 'local' },
  });
  return { dataset, prepared };
}

describe.runIf(canRun)('desktop parity on the local desktop', () => {
  it('setup failures upstream only logs are warnings, and the steps after them run', async () => {
    const { setup } = await env.reset({
      task: task([
        { type: 'activate_window', parameters: { window_name: 'Visual Studio Code' } },
        { type: 'open', parameters: { path: '/home/user/Desktop/missing.docx' } },
        { type: 'launch', parameters: { command: ['no-such-program-osharm'] } },
        { type: 'execute', parameters: { command: ['touch', '/home/user/after-warnings'] } },
      ]),
    });
    expect(setup.warnings.map(warning => [warning.stepIndex, warning.stepType])).toEqual([
      [0, 'activate_window'],
      [1, 'open'],
      [2, 'launch'],
    ]);
    expect(setup.warnings[0]?.message).toMatch(
      /^activating the window "Visual Studio Code" failed/,
    );
    const listing = await env.guest.execute(['ls', '/home/user'], { setup: true });
    expect(listing.output).toContain('after-warnings');
  });

  it('a download missing from the cache is fatal offline, naming the cache file', async () => {
    const url = 'https://drive.google.com/uc?export=download&id=osharm-missing';
    await expect(
      env.reset({
        task: task([
          { type: 'download', parameters: { files: [{ url, path: '/home/user/a.docx' }] } },
        ]),
      }),
    ).rejects.toThrow(/config step 1 \(download\) failed: offline: .* is not in the cache/);
  });

  it.runIf(installed('gimp'))(
    'launch gimp: the main window, not the plug-in splash, is up after setup',
    async () => {
      const { setup } = await env.reset({
        task: task([{ type: 'launch', parameters: { command: ['gimp'] } }]),
      });
      expect(setup.warnings).toEqual([]);
      expect(setup.steps[0]?.detail).toMatch(/^GIMP's main window up after/);
      const listing = await windows();
      expect(listing).toContain('GNU Image Manipulation Program');
      expect(listing).not.toContain('GIMP Startup');
    },
  );

  const notificationRuns = [
    ['libreoffice_writer/__align_text', 'LibreOffice Writer', true],
    ['thunderbird/__injected_email', 'Thunderbird', installed('thunderbird')],
  ] as const;
  it.each(notificationRuns)(
    'desktop_notification over %s: the injected text is in the accessibility tree',
    async (id, app, available) => {
      if (!available) return;
      const { dataset, prepared } = await injectionRun(id, 'desktop_notification');
      await env.reset({ task: { ...dataset.config, config: [] } });
      const record = await env.runSetup(prepared.steps, { baseDir: prepared.assetRoot });
      expect(record.warnings).toEqual([]);
      const text = escaped(prepared.injection.content);
      // with the application's window up (Thunderbird takes a while), the bubble is still there
      expect(await windowWith(app)).toContain(app);
      expect(await treeWith(text)).toContain(text);
    },
    120_000,
  );

  // The vs_code vector rewrites a file VS Code already shows (the task's `code FILE`): the editor
  // must show the new content. Monaco keeps its text out of the accessibility tree unless
  // screen-reader mode is on, so this test (only) turns it on in the machine settings to read the
  // document shown around the cursor through the tree.
  it.runIf(localVscode().kind !== 'stand-in')(
    'vs_code vector: the document VS Code shows holds the injected comment header',
    async () => {
      const { dataset, prepared } = await injectionRun(
        'vs_code/7aeae0e2-70ee-4705-821d-1bba5d5b2ddd',
        'vs_code',
      );
      const machineSettings = {
        type: 'execute',
        parameters: {
          command: [
            'bash',
            '-c',
            'mkdir -p ~/.config/Code/Machine && echo \'{"editor.accessibilitySupport": "on"}\' > ~/.config/Code/Machine/settings.json',
          ],
        },
      };
      // (its activate_window may warn on a loaded machine: the window is waited for below)
      await env.reset({
        task: { ...dataset.config, config: [machineSettings, ...(dataset.config.config ?? [])] },
      });
      expect(await windowWith('main.py - Visual Studio Code')).toContain('Visual Studio Code');
      const record = await env.runSetup(prepared.steps, { baseDir: prepared.assetRoot });
      expect(record.warnings).toEqual([]);
      const [firstLine, secondLine] = injectionCommentHeader(prepared.injection.content).split(
        '\n',
      );
      const tree = await treeWith(escaped(firstLine!.trimEnd()));
      expect(tree).toContain(escaped(firstLine!.trimEnd()));
      expect(tree).toContain(escaped(secondLine!.trimEnd()));
    },
    120_000,
  );

  // Upstream's received mails sit in the Important folder: the first observation shows Thunderbird,
  // and the text once the agent opens the message (as here, in a message window).
  it.runIf(installed('thunderbird'))(
    'thunderbird_mail_received vector: the opened message shows the injected text',
    async () => {
      const { dataset, prepared } = await injectionRun(
        'thunderbird/__injected_email',
        'thunderbird_mail_received',
      );
      await env.reset({ task: { ...dataset.config, config: [] } });
      const record = await env.runSetup(prepared.steps, { baseDir: prepared.assetRoot });
      expect(record.warnings).toEqual([]);
      expect(await windowWith('Mozilla Thunderbird')).toContain('Mozilla Thunderbird');
      // message 3's body is the injected text (message 2 has it as a postscript)
      const message = `${THUNDERBIRD_PROFILE}/Mail/Local Folders/Important/cur/message_3.eml`;
      await env.guest.execute(
        [
          'bash',
          '-c',
          'setsid thunderbird -profile "$1" -file "$2" >/dev/null 2>&1 </dev/null &',
          'open',
          THUNDERBIRD_PROFILE,
          message,
        ],
        { setup: true },
      );
      // Thunderbird shows a URL as a link element of its own: the text up to the first URL
      const text = escaped(prepared.injection.content.split(/https?:\/\//)[0]!.trim());
      expect(text.length).toBeGreaterThan(40);
      expect(await treeWith(text, 40)).toContain(text);
    },
    120_000,
  );
});
