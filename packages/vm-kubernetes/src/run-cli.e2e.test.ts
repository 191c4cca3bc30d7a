// `osharm run --provider kubernetes` as a user runs it: the built CLI (apps/cli/dist, a separate
// process) with KUBECONFIG pointing at the loopback API stand-in, whose kubelet plays each pod with
// podman on the real desktop image. Two bundled misuse tasks with the offline refusing model (no
// model server, no judge). Skips, saying why, without podman, the image or a built CLI.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StandIn } from './__fixtures__/api-stand-in';
import { startStandIn } from './__fixtures__/api-stand-in';
import {
  desktopImage,
  podman,
  podmanKubelet,
  podmanSkipReason,
} from './__fixtures__/podman-kubelet';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const cliBin = join(repoRoot, 'apps/cli/dist/bin.js');
const reason =
  podmanSkipReason() ??
  (existsSync(cliBin) ? undefined : `the CLI is not built (${cliBin}): run bash scripts/setup.sh`);
if (reason) console.warn(`vm-kubernetes osharm run e2e skipped: ${reason}`);

describe.skipIf(reason !== undefined)('osharm run --provider kubernetes', () => {
  let standIn: StandIn;
  let dir: string;
  beforeAll(async () => {
    standIn = await startStandIn('osharm-e2e', podmanKubelet);
    dir = mkdtempSync(join(tmpdir(), 'osharm-kube-run-'));
  });
  afterAll(async () => {
    await standIn?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs two tasks on desktop pods, records provider kubernetes, leaves no pod behind', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, standIn.kubeconfig(), { mode: 0o600 });
    const resultDir = join(dir, 'results');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        cliBin,
        'run',
        '--model',
        'offline-refuse',
        '--judge-model',
        'none',
        '--settle',
        '0.5',
        '--test-all-meta-path',
        'evaluation_examples/test_misuse.json',
        '--limit',
        '2',
        '--result-dir',
        resultDir,
        '--provider',
        'kubernetes',
        '--image',
        desktopImage,
        '--memory',
        '1536',
        '--cpus',
        '1',
      ],
      { cwd: repoRoot, env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 400_000 },
    );
    const modelDir = join(resultDir, 'pyautogui/a11y_tree/offline-refuse');
    const runs = readdirSync(modelDir).flatMap(domain =>
      readdirSync(join(modelDir, domain)).map(task => join(modelDir, domain, task)),
    );
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(readFileSync(join(run, 'result.txt'), 'utf8').trim()).toMatch(/^\d+(\.\d+)?$/);
      const fidelity = JSON.parse(readFileSync(join(run, 'fidelity.json'), 'utf8')) as {
        provider: string;
      };
      expect(fidelity.provider).toBe('kubernetes');
      expect(readdirSync(run)).toContain('step_0.png');
    }
    expect(stdout).toMatch(/runs this time: 2, finished: 2, errored: 0/);
    // Every pod went through the API: two pods (start, then revert), all deleted again.
    expect(
      standIn.requests.filter(r => r === 'POST /api/v1/namespaces/osharm-e2e/pods'),
    ).toHaveLength(2);
    expect([...standIn.store.pods.keys()]).toEqual([]);
    expect([...standIn.store.secrets.keys()]).toEqual([]);
    await standIn.settled();
    expect(
      podman(['pod', 'ls', '--format', '{{.Name}}'])
        .split('\n')
        .filter(name => name.startsWith('osharm-desktop-')),
    ).toEqual([]);
  });
});
