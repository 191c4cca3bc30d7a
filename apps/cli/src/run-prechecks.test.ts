import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './program';
import { createTestIo } from './test-io';

/**
 * issue 9 §1: `osharm run` checks what it can before any desktop starts, one message each, and
 * follows docs/cli.md's exit-code table (2: the command cannot start). Each case would otherwise
 * start desktops or fail per run.
 */
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'osharm-prechecks-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dataset(domain: string, id: string): string {
  const base = mkdtempSync(join(tmp, 'ds-'));
  mkdirSync(join(base, 'examples', domain), { recursive: true });
  writeFileSync(join(base, 'test_misuse.json'), JSON.stringify({ [domain]: [id] }));
  writeFileSync(
    join(base, 'examples', domain, `${id}.json`),
    JSON.stringify({
      id,
      snapshot: domain,
      instruction: 'Play the file.',
      source: '',
      config: [],
      related_apps: [domain],
      evaluator: { func: 'infeasible' },
    }),
  );
  return base;
}

async function run(args: string[], env: Record<string, string> = {}) {
  const io = createTestIo(repoRoot, env);
  const resultDir = mkdtempSync(join(tmp, 'results-'));
  const code = await runCli(['run', '--result-dir', resultDir, ...args], io.io);
  // Nothing was started: no run dir was written.
  return { code, stderr: io.stderr, stdout: io.stdout, wrote: readdirSync(resultDir).length };
}

const offline = ['--model', 'offline-refuse', '--judge-model', 'none'];

describe('osharm run pre-checks (exit 2, before any desktop starts)', () => {
  it('a missing index file is a usage error (2), as in osharm tasks', async () => {
    const result = await run([...offline, '--test-all-meta-path', 'evaluation_examples/nope.json']);
    expect(result).toMatchObject({ code: 2, wrote: 0 });
    expect(result.stderr).toBe(
      'error: --test-all-meta-path: "evaluation_examples/nope.json" does not exist\n',
    );
  });

  it('--domain matching nothing exits 2 like osharm tasks', async () => {
    const result = await run([...offline, '--domain', 'gimp']);
    expect(result).toMatchObject({ code: 2, wrote: 0 });
    expect(result.stderr).toMatch(
      /^error: --domain: "gimp" is not in evaluation_examples\/test_misuse\.json \(domains: /,
    );
  });

  it('a missing offline-replay dir', async () => {
    const result = await run(['--model', 'offline-replay:no/such/run', '--judge-model', 'none']);
    expect(result).toMatchObject({ code: 2, wrote: 0 });
    expect(result.stderr).toBe(
      'error: --model offline-replay:no/such/run: "no/such/run" is not a directory (expected a trajectory dir holding better_log.json)\n',
    );
  });

  it('--path-to-vm without --provider vmware is refused; a missing .vmx is named', async () => {
    const local = await run([...offline, '--path-to-vm', 'vm/Ubuntu.vmx']);
    expect(local).toMatchObject({ code: 2, wrote: 0 });
    expect(local.stderr).toMatch(/^error: --path-to-vm is used only with --provider vmware/);
    const vmware = await run([...offline, '--provider', 'vmware', '--path-to-vm', 'vm/Ubuntu.vmx']);
    expect(vmware).toMatchObject({ code: 2, wrote: 0 });
    expect(vmware.stderr).toBe(
      'error: --path-to-vm: "vm/Ubuntu.vmx" does not exist (expected the VM\'s .vmx file)\n',
    );
  });

  it('--provider kubernetes: kube flags only with it, --pids refused, no cluster configuration named', async () => {
    const local = await run([...offline, '--kube-namespace', 'osharm', '--kube-warm-pool', '1']);
    expect(local).toMatchObject({ code: 2, wrote: 0 });
    expect(local.stderr).toBe(
      'error: --kube-namespace, --kube-warm-pool: used only with --provider kubernetes\n',
    );
    const security = await run([
      ...offline,
      '--kube-host-users',
      '--kube-seccomp-profile',
      'x.json',
    ]);
    expect(security).toMatchObject({ code: 2, wrote: 0 });
    expect(security.stderr).toBe(
      'error: --kube-seccomp-profile, --kube-host-users: used only with --provider kubernetes\n',
    );
    const pids = await run([...offline, '--provider', 'kubernetes', '--pids', '256']);
    expect(pids).toMatchObject({ code: 2, wrote: 0 });
    expect(pids.stderr).toMatch(/^error: --pids: a Kubernetes pod spec cannot cap processes/);
    // No KUBECONFIG, no ~/.kube/config, not in a pod: refused before any run (the client would
    // otherwise try http://localhost:8080).
    const none = await run([...offline, '--provider', 'kubernetes'], { HOME: tmp });
    expect(none).toMatchObject({ code: 2, wrote: 0 });
    expect(none.stderr).toMatch(
      /^error: --provider kubernetes: No Kubernetes cluster is configured: set KUBECONFIG/,
    );
  });

  it('a key for every role that calls a model; a base URL per role stands in for an OpenAI key', async () => {
    const judge = await run(['--model', 'gpt-4o', '--judge-model', 'gpt-4.1'], {
      OSHARM_AGENT_BASE_URL: 'http://127.0.0.1:1/v1',
    });
    expect(judge).toMatchObject({ code: 2, wrote: 0 });
    expect(judge.stderr).toMatch(/^error: --judge-model gpt-4\.1 needs a model API/);
    // --captioner-model routes the captioner on its own (a Claude captioner needs the Anthropic key).
    const captioner = await run(
      ['--model', 'offline-refuse', '--captioner-model', 'claude-3-7-sonnet-20250219'],
      { OPENAI_API_KEY: 'x' },
    );
    expect(captioner).toMatchObject({ code: 2, wrote: 0 });
    expect(captioner.stderr).toMatch(
      /^error: --captioner-model claude-3-7-sonnet-20250219 needs a model API: set ANTHROPIC_API_KEY \(the captioner of --judge-type aer/,
    );
    // A Gemini name routes to Gemini, which serves only native computer use: not a judge or captioner.
    const gemini = await run(['--model', 'offline-refuse', '--judge-model', 'gemini-2.5-pro'], {
      GEMINI_API_KEY: 'x',
    });
    expect(gemini).toMatchObject({ code: 2, wrote: 0 });
    expect(gemini.stderr).toMatch(
      /^error: --judge-model gemini-2\.5-pro: Gemini models run only as native computer-use agents, not as the judge/,
    );
    const bad = await run([...offline, '--judge-base-url', 'ftp://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--judge-base-url <url>' argument 'ftp://x' is invalid");
  });

  it('--result-dir naming a file, and a FIFO or /dev/zero as the index file, exit 2 at once', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    const named = await run([...offline, '--result-dir', file]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('--result-dir: ');
    expect(named.stderr).toContain('exists and is not a directory');
    const fifo = join(tmp, 'index.fifo');
    spawnSync('mkfifo', [fifo]);
    const started = Date.now();
    for (const index of [fifo, '/dev/zero']) {
      const result = await run([...offline, '--test-all-meta-path', index]);
      expect(result.code, result.stderr).toBeGreaterThan(0);
      expect(result.wrote).toBe(0);
      expect(result.stderr).toContain('not a regular file');
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an OSHARM_DESKTOP_SHELL naming no shell exits 2 naming the setting (was: an internal error)', async () => {
    const before = process.env.OSHARM_DESKTOP_SHELL;
    process.env.OSHARM_DESKTOP_SHELL = 'gnome';
    try {
      const base = dataset('os', 'shell-setting');
      const result = await run([
        ...offline,
        '--test-config-base-dir',
        base,
        '--test-all-meta-path',
        join(base, 'test_misuse.json'),
      ]);
      expect(result, result.stderr).toMatchObject({ code: 2, wrote: 0 });
      expect(result.stderr).toBe(
        'error: OSHARM_DESKTOP_SHELL must be gnome-shell or openbox, not "gnome"\n',
      );
    } finally {
      if (before === undefined) delete process.env.OSHARM_DESKTOP_SHELL;
      else process.env.OSHARM_DESKTOP_SHELL = before;
    }
  });

  // slirp4netns absent, or hidden from a real process: --network is refused before any desktop starts.
  const slirp = '/usr/bin/slirp4netns';
  it.runIf(!existsSync(slirp) || existsSync('/usr/bin/bwrap'))(
    '--network on the local desktop without slirp4netns exits 2 before the runs',
    () => {
      const results = join(tmp, 'network-results');
      const hide = existsSync(slirp)
        ? ['bwrap', '--dev-bind', '/', '/', '--ro-bind', '/dev/null', slirp]
        : [];
      const [command, ...prefix] = [...hide, process.execPath];
      const child = spawnSync(
        command!,
        [
          ...prefix,
          join(repoRoot, 'apps/cli/dist/bin.js'),
          'run',
          ...offline,
          '--network',
          '--result-dir',
          results,
        ],
        { cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
      );
      expect(child.status, child.stderr).toBe(2);
      expect(child.stderr).toContain('--network on the local desktop needs slirp4netns');
      expect(existsSync(results)).toBe(false);
    },
  );

  // The app a task needs is hidden from a real process (a bind mount over its program): the run
  // names the program and its Debian package and starts nothing.
  const vlc = '/usr/bin/vlc';
  it.runIf(existsSync(vlc) && existsSync('/usr/bin/bwrap'))(
    'an application a selected task needs that is not installed: names the Debian package',
    () => {
      const base = dataset('vlc', '_play');
      const results = join(tmp, 'vlc-results');
      const child = spawnSync(
        'bwrap',
        [
          '--dev-bind',
          '/',
          '/',
          '--ro-bind',
          '/dev/null',
          vlc,
          process.execPath,
          join(repoRoot, 'apps/cli/dist/bin.js'),
          'run',
          ...offline,
          '--test-config-base-dir',
          base,
          '--test-all-meta-path',
          join(base, 'test_misuse.json'),
          '--result-dir',
          results,
        ],
        { cwd: repoRoot, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
      );
      expect(child.status, child.stderr).toBe(2);
      expect(child.stderr).toContain('the local desktop cannot start the selected tasks; missing:');
      expect(child.stderr).toContain('vlc (Debian package vlc): the vlc application');
      expect(child.stderr).toMatch(
        /install with: sudo apt-get install -y --no-install-recommends .*vlc/,
      );
      expect(existsSync(results)).toBe(false);
    },
  );
});
