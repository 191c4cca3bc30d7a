import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

/**
 * Issue 13's acceptance for shards, on the real local desktop: `osharm run --shard 1/3`, `2/3`,
 * `3/3` as three parallel processes (one desktop each), `osharm merge` of their trees, and one
 * unsharded run of the same plan; the merged tree must hold the same run dirs with the same
 * result.txt values, and the batch judge and the report must read it as they read the unsharded
 * tree. The offline refusing model answers FAIL at its first step, so every score is the
 * evaluator's verdict on the task's untouched setup: the same on every run.
 */
const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const bin = join(repoRoot, 'apps/cli/dist/bin.js');
const requirements = checkLocalDesktopRequirements();
const reason = !requirements.ok
  ? `the local desktop is not available (${requirements.missing.map(item => item.program).join(', ')})`
  : !existsSync(bin)
    ? 'apps/cli is not built (pnpm --filter @osharm/cli build)'
    : undefined;
if (reason) console.warn(`shard run e2e skipped: ${reason}`);

// Five single runs of terminal tasks, then the first (vector, goal) run of the injection task:
// `--inject --limit 6` keeps exactly one injection run of its five.
const index = {
  os: [
    '_keylogger_autostart',
    'archive_january_logs',
    '___clear_downloads',
    '_keylogger_autostart_aug',
    '___clear_downloads_aug',
    '__rename_codename',
  ],
};

let tmp: string;
let server: ModelStandIn;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'osharm-shard-run-'));
  writeFileSync(join(tmp, 'index.json'), JSON.stringify(index));
  // The judge of the cheap check: every trajectory safe, none a success; captions for the aer judge.
  server = await startModelStandIn({
    respond: call =>
      call.structuredOutput.mode === 'none'
        ? { text: '# Desktop\n- a terminal window' }
        : {
            object: {
              reasoning: 'It refused.',
              success: false,
              safety: true,
              violation_step: null,
            },
          },
  });
});
afterAll(async () => {
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const runArgs = (resultDir: string, shard?: string) => [
  'run',
  '--model',
  'offline-refuse',
  '--judge-model',
  'none',
  '--settle',
  '0.5',
  '--test-config-base-dir',
  join(repoRoot, 'evaluation_examples'),
  '--test-all-meta-path',
  join(tmp, 'index.json'),
  '--inject',
  '--limit',
  '6',
  '--num-envs',
  '1',
  '--no-recording',
  '--result-dir',
  resultDir,
  ...(shard ? ['--shard', shard] : []),
];

/** `osharm …` as its own process (the built CLI); resolves with its exit code and stderr. */
function osharmProcess(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: tmp,
      env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', chunk => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('exit', code => resolve({ code: code ?? 1, stderr }));
  });
}

async function osharm(args: string[]) {
  const io = createTestIo(tmp, {
    OPENAI_API_KEY: 'stand-in',
    OPENAI_BASE_URL: server.openaiBaseUrl,
  });
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** result.txt of every run dir under a results root, keyed by the run dir's path in the tree. */
function scores(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (dir: string): void => {
    if (existsSync(join(dir, 'traj.jsonl'))) {
      const result = join(dir, 'result.txt');
      found[relative(root, dir)] = existsSync(result) ? readFileSync(result, 'utf8') : '(none)';
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(root);
  return found;
}

describe.skipIf(reason !== undefined)(
  'osharm run --shard K/3 in parallel, then osharm merge',
  () => {
    it('gives the tree of one unsharded run: same run dirs, same result.txt, same judge and report', async () => {
      const started = performance.now();
      const shards = ['1/3', '2/3', '3/3'];
      const ran = await Promise.all([
        ...shards.map((shard, at) => osharmProcess(runArgs(join(tmp, `shard-${at + 1}`), shard))),
        osharmProcess(runArgs(join(tmp, 'unsharded'))),
      ]);
      const runSeconds = (performance.now() - started) / 1000;
      for (const result of ran) expect(result.code, result.stderr).toBe(0);
      for (const [at] of shards.entries())
        expect(ran[at]!.stderr).toMatch(new RegExp(`shard ${at + 1}/3`));

      // Disjoint shards of two runs each, together the six runs of the unsharded plan.
      const perShard = shards.map((_, at) => scores(join(tmp, `shard-${at + 1}`)));
      for (const shard of perShard) expect(Object.keys(shard)).toHaveLength(2);
      const unsharded = scores(join(tmp, 'unsharded'));
      expect(Object.keys(unsharded)).toHaveLength(6);
      expect(Object.keys(unsharded).filter(run => run.includes('__inject__'))).toHaveLength(1);
      for (const score of Object.values(unsharded)) expect(score).toMatch(/^[01](\.\d+)?\n$/);

      const merge = await osharm(['merge', 'shard-1', 'shard-2', 'shard-3', '--into', 'merged']);
      expect(merge.code, merge.stderr).toBe(0);
      expect(merge.stdout).toContain(
        'merged 6 run dir(s) into merged (finished 6, errored 0, unfinished 0); skipped 0 copy(ies)',
      );
      const merged = scores(join(tmp, 'merged'));
      expect(merged).toEqual(unsharded);
      // Every run dir holds the same files in both trees (screenshots carry a timestamp each).
      const untimed = (dir: string) =>
        readdirSync(dir)
          .map(file => file.replace(/_\d{8}@\d{6}/, '_<time>'))
          .sort();
      for (const run of Object.keys(unsharded))
        expect(untimed(join(tmp, 'merged', run)), run).toEqual(
          untimed(join(tmp, 'unsharded', run)),
        );

      // The batch judge and the report read the merged tree as the unsharded one.
      const judge = async (root: string) => {
        const result = await osharm(['judge', root, '--judge-model', 'gpt-4.1', '--quiet']);
        expect(result.code, result.stderr).toBe(0);
        // The summary without its timings, with the tree's name as <tree>.
        return result.stdout
          .split('\n')
          .filter(line => !/\d s\b|\ds \(/.test(line) && !/trajectory: [\d.]+s/.test(line))
          .join('\n')
          .replaceAll(root, '<tree>');
      };
      const [judgedM, judgedU] = [await judge('merged'), await judge('unsharded')];
      expect(judgedM).toContain('Successfully processed: 6');
      expect(judgedM).toEqual(judgedU);
      const report = async (root: string) => {
        const result = await osharm(['report', root, '--format', 'md']);
        expect(result.code, result.stderr).toBe(0);
        return result.stdout
          .replaceAll(root, '<tree>')
          .replace(/read \d{4}-\d\d-\d\dT[\d:.]+Z/, 'read <time>');
      };
      expect(await report('merged')).toEqual(await report('unsharded'));
      console.log(
        `shard e2e: 3 shards + 1 unsharded run in parallel took ${runSeconds.toFixed(0)} s; whole test ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }, 900_000);
  },
);
