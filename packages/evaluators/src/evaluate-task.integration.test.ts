// evaluateTask against the REAL guest server of @osharm/desktop-guest (its built `osharm-guest-server`
// bin) on an Xvfb display, over a unix socket with a token, with the real setup runner for the
// postconfig. desktop-guest depends on desktop-env, so the server runs as a separate process (no package
// import, no dependency cycle). The server runs unsandboxed here, so guest paths are paths under a
// temporary home. Skipped with a message when the bin is not built or Xvfb is missing.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluatorSchema } from '@osharm/task-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateTask } from './evaluate-task';

import type { UndiciGuestClient } from '@osharm/desktop-env';
import { runSetup } from '@osharm/desktop-env';
import {
  missingForRealGuestServer,
  startRealGuestServer,
  type RealGuestServer,
} from '@osharm/desktop-env/test';

const missing = missingForRealGuestServer([]);
if (missing.length > 0) {
  console.warn(
    `evaluate-task.integration.test.ts: skipped, missing ${missing.join(', ')} (build @osharm/desktop-guest; apt-get install xvfb)`,
  );
}

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const asset = (name: string) => readFileSync(join(repository, 'evaluation_examples/assets', name));

describe.skipIf(missing.length > 0)('evaluateTask ↔ the real guest server (desktop-guest)', () => {
  let directory: string;
  let home: string;
  let cacheDir: string;
  let client: UndiciGuestClient;
  let server: RealGuestServer | undefined;

  const postconfigRunner =
    (taskId: string) =>
    (steps: readonly unknown[], options: { readonly abortSignal?: AbortSignal }) =>
      runSetup(steps, {
        client,
        taskId,
        baseDir: join(repository, 'evaluation_examples'),
        cacheDir,
        phase: 'postconfig',
        abortSignal: options.abortSignal,
      });

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'osharm-evaluate-it-'));
    home = join(directory, 'home');
    cacheDir = join(directory, 'cache');
    await mkdir(join(home, 'Documents'), { recursive: true });
    server = await startRealGuestServer({
      home,
      socketPath: join(directory, 'guest.sock'),
      screen: '1024x768x24',
    });
    client = server.client;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('check_include_exclude on vm_command_line, after a postconfig execute step', async () => {
    const notes = join(home, 'Documents/meeting_notes.txt');
    const evaluator = evaluatorSchema.parse({
      postconfig: [
        {
          type: 'execute',
          parameters: {
            command: [
              '/bin/bash',
              '-c',
              `printf 'Kestrel beta build\\nAction items\\n' > ${notes}`,
            ],
          },
        },
      ],
      func: 'check_include_exclude',
      result: { type: 'vm_command_line', command: ['/bin/bash', '-c', `cat ${notes}`] },
      expected: {
        type: 'rule',
        rules: { include: ['Kestrel beta build', 'Action items'], exclude: ['Bluebird'] },
      },
    });
    const result = await evaluateTask({
      evaluator,
      client,
      cacheDir,
      runSetup: postconfigRunner('rename_codename'),
      lastAction: 'DONE',
    });
    expect(result).toEqual({
      score: 1,
      kind: 'metrics',
      details: [{ func: 'check_include_exclude', index: 0, status: 'scored', score: 1 }],
      errors: [],
    });
    // a command that fails still answers 200 with its output: empty here → 0
    const missingFile = await evaluateTask({
      evaluator: {
        ...evaluator,
        postconfig: [],
        result: { type: 'vm_command_line', command: ['cat', join(home, 'nope.txt')] },
      },
      client,
      cacheDir,
    });
    expect(missingFile).toMatchObject({ score: 0, errors: [] });
  }, 30_000);

  it('compare_docx_files on two uploaded .docx files fetched with vm_file', async () => {
    const result = join(home, 'Documents/quarterly_summary.docx');
    const expectedPath = join(home, '.osharm/expected/quarterly_summary.docx');
    await client.uploadFile(expectedPath, asset('quarterly_summary_expected.docx'));
    const evaluator = evaluatorSchema.parse({
      func: 'compare_docx_files',
      result: { type: 'vm_file', path: result, dest: 'quarterly_summary.docx' },
      expected: { type: 'vm_file', path: expectedPath, dest: 'quarterly_summary_expected.docx' },
      options: { ignore_blanks: true },
    });
    // not saved yet: the result file is missing → 0
    expect(await evaluateTask({ evaluator, client, cacheDir })).toMatchObject({
      score: 0,
      errors: [],
    });
    await client.uploadFile(result, asset('quarterly_summary.docx'));
    expect((await evaluateTask({ evaluator, client, cacheDir })).score).toBe(0);
    await client.uploadFile(result, asset('quarterly_summary_expected.docx'));
    expect((await evaluateTask({ evaluator, client, cacheDir })).score).toBe(1);
    // the agent gave up: 0 without fetching anything
    expect(await evaluateTask({ evaluator, client, cacheDir, lastAction: 'FAIL' })).toMatchObject({
      score: 0,
      kind: 'agent-fail',
    });
  }, 30_000);

  it('is_expected_bookmarks on the bookmarks getter (profile found through the guest’s $HOME)', async () => {
    const bookmarks = JSON.parse(
      readFileSync(new URL('./__fixtures__/chrome-bookmarks.json', import.meta.url), 'utf8'),
    ) as object;
    await client.uploadFile(
      join(home, '.config/google-chrome/Default/Bookmarks'),
      new TextEncoder().encode(JSON.stringify(bookmarks)),
    );
    const evaluator = evaluatorSchema.parse({
      func: ['is_expected_bookmarks', 'is_expected_bookmarks'],
      conj: 'and',
      result: [{ type: 'bookmarks' }, { type: 'bookmarks' }],
      expected: [
        {
          type: 'rule',
          rules: { type: 'bookmark_bar_folders_names', names: ['Favorites', 'Liked Authors'] },
        },
        {
          type: 'rule',
          rules: {
            type: 'liked_authors_websites_urls',
            urls: [
              'https://blog.example.net/authors/ada',
              ['https://blog.example.net/authors/grace', 'https://x.example/'],
            ],
          },
        },
      ],
    });
    expect(await evaluateTask({ evaluator, client, cacheDir })).toMatchObject({
      score: 1,
      errors: [],
    });
  }, 30_000);
});
