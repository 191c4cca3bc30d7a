import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './program';
import { createTestIo } from './test-io';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const upstream = fileURLToPath(
  new URL('../../../../shared/osharm-dataset/evaluation_examples', import.meta.url),
);
const hasUpstream = existsSync(upstream);

async function cli(args: string[], cwd = repoRoot) {
  const io = createTestIo(cwd);
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

let tmp: string;
function writeDataset(files: Record<string, unknown>): string {
  const base = mkdtempSync(join(tmp, 'ds-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(
      join(base, path),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
  }
  return base;
}
const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  snapshot: 'os',
  instruction: 'Say hello in a terminal.',
  source: '',
  config: [{ type: 'launch', parameters: { command: ['gnome-terminal'] } }],
  related_apps: ['os'],
  evaluator: { func: 'infeasible' },
  ...extra,
});

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('help and usage errors', () => {
  it('prints help for every command and exits 0', async () => {
    for (const args of [
      ['--help'],
      ['tasks', '--help'],
      ['tasks', 'validate', '--help'],
      ['tasks', 'list', '--help'],
      ['tasks', 'show', '--help'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^Usage: osharm/);
    }
    expect((await cli(['tasks', 'validate', '--help'])).stdout).toContain(
      '--test-config-base-dir <dir>',
    );
  });

  it('prints help and exits 2 with no arguments', async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('Commands:');
  });

  it('exits 2 on an unknown option or command, with a one-line reason', async () => {
    const option = await cli(['tasks', 'validate', '--no-such-flag']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("error: unknown option '--no-such-flag'");
    const command = await cli(['tasks', 'frobnicate']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('env up: an impossible screen size is a usage error (2) before any desktop starts', async () => {
    for (const [flag, value] of [
      ['--screen-width', '-1'],
      ['--screen-width', '100000'],
      ['--screen-height', '0'],
      ['--screen-width', '12.5'],
    ] as const) {
      const result = await cli(['env', 'up', `${flag}=${value}`]);
      expect(result.code, `${flag}=${value}`).toBe(2);
      expect(result.stderr).toMatch(/must be an integer from \d+ to \d+ \(pixels\)/);
      expect(result.stdout).not.toContain('local desktop up');
    }
  });

  it('exits 2 when the base dir does not exist or the domain is not in the index', async () => {
    const missing = await cli(['tasks', 'validate', '--test-config-base-dir', join(tmp, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('is not a directory');
    const base = writeDataset({
      'test_misuse.json': { os: ['_a'] },
      'examples/os/_a.json': task('_a'),
    });
    const domain = await cli(['tasks', 'list', '--test-config-base-dir', base, '--domain', 'gimp']);
    expect(domain.code).toBe(2);
    expect(domain.stderr).toContain('--domain: "gimp" is not in');
    expect(domain.stderr).toContain('domains: os');
  });
});

describe('osharm run: model API checks before any desktop starts', () => {
  it('names the key each model needs, by the same routing as the adapters', async () => {
    const run = async (args: string[], env: Record<string, string>) => {
      const io = createTestIo(repoRoot, env);
      const code = await runCli(['run', ...args], io.io);
      return { code, stderr: io.stderr };
    };
    const claude = await run(['--model', 'claude-sonnet-4-20250514', '--judge-model', 'none'], {
      OPENAI_API_KEY: 'x',
    });
    expect(claude.code).toBe(2);
    expect(claude.stderr).toContain(
      '--model claude-sonnet-4-20250514 needs a model API: set ANTHROPIC_API_KEY',
    );
    const judge = await run(['--model', 'offline-refuse', '--judge-model', 'gpt-4.1'], {});
    expect(judge.code).toBe(2);
    expect(judge.stderr).toContain(
      '--judge-model gpt-4.1 needs a model API: set OPENAI_API_KEY, or a base URL',
    );
    const captioner = await run(
      ['--model', 'offline-refuse', '--judge-model', 'claude-sonnet-4-20250514'],
      { ANTHROPIC_API_KEY: 'x' },
    );
    expect(captioner.code).toBe(2);
    expect(captioner.stderr).toContain(
      '--captioner-model gpt-4o-2024-11-20 needs a model API: set OPENAI_API_KEY, or a base URL for an OpenAI-compatible server (OPENAI_BASE_URL, vLLM, Ollama) (the captioner of --judge-type aer',
    );
  });
});

describe('osharm tasks validate', () => {
  it.runIf(hasUpstream)(
    'validates the upstream dataset: 110 tasks, 50 unique injection runs',
    async () => {
      const result = await cli(['tasks', 'validate', '--test_config_base_dir', upstream]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('test_misuse.json: 50 valid task(s) (misuse 50)');
      expect(result.stdout).toContain('test_injection.json: 10 valid task(s) (injection 10)');
      expect(result.stdout).toContain('test_misbehavior.json: 50 valid task(s) (misbehavior 50)');
      expect(result.stdout).toContain(
        '10 task(s) list 51 (vector, goal) pair(s) = 50 unique run(s)',
      );
      expect(result.stdout).toMatch(/ok: 110 valid task\(s\) in 3 index file\(s\); 0 error\(s\)/);
    },
  );

  it.runIf(hasUpstream)('accepts one index file in upstream spelling, with a domain', async () => {
    const result = await cli([
      'tasks',
      'validate',
      `--test_config_base_dir=${upstream}`,
      '--test_all_meta_path',
      join(upstream, 'test_misuse.json'),
      '--domain',
      'os',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ok: 8 valid task(s) in 1 index file(s)');
  });

  it.runIf(hasUpstream)(
    'takes the base dir from the index file when only that is given',
    async () => {
      const result = await cli([
        'tasks',
        'list',
        '--test-all-meta-path',
        join(upstream, 'test_injection.json'),
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('10 task(s)');
    },
  );

  it('validates the bundled evaluation_examples with no errors and no warnings', async () => {
    const result = await cli(['tasks', 'validate']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/^(error|warning):/m);
    expect(result.stdout).toContain('evaluation_examples/test_misuse.json');
    expect(result.stdout).toMatch(
      /ok: \d+ valid task\(s\) in 4 index file\(s\); 0 error\(s\), 0 warning\(s\)/,
    );
  });

  it('exits 1 on invalid data and names file and JSON path of each error', async () => {
    const base = writeDataset({
      'test_misuse.json': { os: ['_a', '_b', '_c'] },
      'examples/os/_a.json': task('_a', { instruction: 42 }),
      'examples/os/_b.json': task('_b_renamed'),
    });
    const result = await cli(['tasks', 'validate', '--test-config-base-dir', base]);
    expect(result.code).toBe(1);
    const errors = result.stdout.split('\n').filter(line => line.startsWith('error:'));
    expect(errors).toEqual([
      `error: ${join(base, 'examples/os/_a.json')}: $.instruction: expected a string, got number 42`,
      `error: ${join(base, 'examples/os/_b.json')}: $.id: expected "_b" (the file name), got "_b_renamed"`,
      `error: ${join(base, 'test_misuse.json')}: $.os[2]: lists task "_c" but its file ${join(base, 'examples/os/_c.json')} does not exist`,
    ]);
    expect(result.stdout).toContain(
      'invalid: 0 valid task(s) in 1 index file(s); 3 error(s), 0 warning(s)',
    );
  });

  it('prints paths inside the working dir relative to it and every other path absolute', async () => {
    const base = writeDataset({
      'test_misuse.json': { os: ['_a'] },
      'examples/os/_a.json': task('_a', { instruction: 42 }),
    });
    // From the dataset's parent: relative, whatever that parent's absolute location is.
    const inside = await cli(['tasks', 'validate', '--test-config-base-dir', base], dirname(base));
    const name = basename(base);
    expect(inside.stdout.split('\n').filter(line => line.startsWith('error:'))).toEqual([
      `error: ${join(name, 'examples/os/_a.json')}: $.instruction: expected a string, got number 42`,
    ]);
    // From a sibling dir (one level away) and from the filesystem root: absolute, never "../".
    const sibling = mkdtempSync(join(tmp, 'cwd-'));
    for (const cwd of [sibling, '/']) {
      const outside = await cli(['tasks', 'validate', '--test-config-base-dir', base], cwd);
      const errorLine = outside.stdout.split('\n').find(line => line.startsWith('error:'));
      expect(errorLine).toBe(
        cwd === '/'
          ? `error: ${join(base, 'examples/os/_a.json').slice(1)}: $.instruction: expected a string, got number 42`
          : `error: ${join(base, 'examples/os/_a.json')}: $.instruction: expected a string, got number 42`,
      );
      expect(outside.stdout).not.toMatch(/(^|\s)\.\.\//m);
    }
  });

  it('reports an unknown setup step type as a warning and still exits 0', async () => {
    const base = writeDataset({
      'test_misuse.json': { os: ['_a'] },
      'examples/os/_a.json': task('_a', {
        config: [{ type: 'teleport', parameters: { to: 'mars' } }],
      }),
    });
    const result = await cli(['tasks', 'validate', '--test-config-base-dir', base]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('$.config[0].type: unknown setup step type "teleport"');
  });

  it('prints a JSON report with --json', async () => {
    const base = writeDataset({
      'test_misuse.json': { os: ['_a'] },
      'examples/os/_a.json': task('_a'),
    });
    const result = await cli(['tasks', 'validate', '--test-config-base-dir', base, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      tasks: number;
      summary: { byCategory: object };
    };
    expect(report.ok).toBe(true);
    expect(report.tasks).toBe(1);
    expect(report.summary.byCategory).toEqual({ misuse: 1 });
  });
});

describe('osharm tasks list / show', () => {
  it('lists domain, id, category, snapshot and evaluator', async () => {
    const base = writeDataset({
      'test_injection.json': { os: ['__b'] },
      'test_misuse.json': { os: ['_a'] },
      'examples/os/_a.json': task('_a'),
      'examples/os/__b.json': task('__b', {
        evaluator: {
          func: ['exact_match', 'check_include_exclude'],
          conj: 'or',
          result: [
            { type: 'vm_command_line', command: 'cat x' },
            { type: 'vm_command_line', command: 'cat y' },
          ],
          expected: [
            { type: 'rule', rules: { expected: 'x' } },
            { type: 'rule', rules: { include: ['y'] } },
          ],
        },
        injections: [{ type: 'desktop_notification', goals: ['stop_task', 'url_query_params'] }],
      }),
    });
    const result = await cli(['tasks', 'list', '--test-config-base-dir', base]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'DOMAIN  ID   CATEGORY   SNAPSHOT  EVALUATOR',
        'os      _a   misuse     os        infeasible',
        'os      __b  injection  os        exact_match or check_include_exclude',
        '2 task(s)',
        '',
      ].join('\n'),
    );
    const json = await cli(['tasks', 'list', '--test-config-base-dir', base, '--json']);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.map(row => row.id)).toEqual(['_a', '__b']);
    expect(rows[1]!.injection_runs).toEqual([
      '__inject__desktop_notification__stop_task',
      '__inject__desktop_notification__url_query_params',
    ]);
  });

  it.runIf(hasUpstream)('shows an upstream task with its unique injection runs', async () => {
    const result = await cli([
      'tasks',
      'show',
      '98e8e339-5f91-4ed2-b2b2-12647cb134f4',
      '--test-config-base-dir',
      upstream,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('category:  injection');
    expect(result.stdout).toContain('injection runs (3 unique of 4 listed):');
    expect(result.stdout).toContain(
      '98e8e339-5f91-4ed2-b2b2-12647cb134f4__inject__vs_code__terminal_cron_setup',
    );
    const json = await cli([
      'tasks',
      'show',
      '_ransomware',
      '--test-config-base-dir',
      upstream,
      '--json',
    ]);
    expect(JSON.parse(json.stdout).id).toBe('_ransomware');
  });

  it('exits 1 for an unknown id, and explains an invalid one', async () => {
    const base = writeDataset({
      'test_misuse.json': { os: ['_a', '_bad'] },
      'examples/os/_a.json': task('_a'),
      'examples/os/_bad.json': '{ "id": "_bad", ',
    });
    const unknown = await cli(['tasks', 'show', '_zzz', '--test-config-base-dir', base]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('task "_zzz" is not listed in');
    const invalid = await cli(['tasks', 'show', '_bad', '--test-config-base-dir', base]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('task "_bad" is invalid:');
    expect(invalid.stderr).toContain('_bad.json: line 1, column');
  });
});

describe('the built binary', () => {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
  it.runIf(existsSync(bin))('exits with the documented codes as a real process', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    const usage = spawnSync(process.execPath, [bin, 'tasks', 'list', '--bogus'], {
      encoding: 'utf8',
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).not.toContain('    at '); // no stack trace
    const version = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
