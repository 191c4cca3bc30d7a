import { fileURLToPath } from 'node:url';
import { loadAllYaml } from '@kubernetes/client-node';
import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program';
import { createTestIo } from '../test-io';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

async function cli(args: string[]) {
  const io = createTestIo(repoRoot);
  const code = await runCli(args, io.io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('osharm kube job', () => {
  it('prints an Indexed Job of N shards whose pods run osharm run with the arguments after --', async () => {
    const result = await cli([
      'kube',
      'job',
      '--shards',
      '4',
      '--parallelism',
      '2',
      '--image',
      'registry.example/osharm-runner:0.1.0',
      '--results-pvc',
      'results',
      '--namespace',
      'bench',
      '--',
      '--model',
      'gpt-4.1',
      '--inject',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const objects = loadAllYaml(result.stdout) as { kind: string }[];
    expect(objects.map(o => o.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'Job']);
    const job = objects[3] as V1Job;
    expect(job.metadata?.namespace).toBe('bench');
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 2 });
    const command = job.spec!.template.spec!.containers[0]!.command!;
    expect(command.slice(3)).toEqual([
      'osharm',
      '--model',
      'gpt-4.1',
      '--inject',
      '--provider',
      'kubernetes',
    ]);
    expect(command[2]).toContain('--shard "$k/4"');
  });

  it('exits 2 naming the flag: a bad shard count, a missing required flag, --shard in the run arguments', async () => {
    const zero = await cli(['kube', 'job', '--shards', '0', '--image', 'i', '--results-pvc', 'p']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--shards: expected a whole number ≥ 1/);
    const missing = await cli(['kube', 'job', '--shards', '2', '--image', 'i']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--results-pvc/);
    const shard = await cli([
      'kube',
      'job',
      '--shards',
      '2',
      '--image',
      'i',
      '--results-pvc',
      'p',
      '--',
      '--shard',
      '1/2',
    ]);
    expect(shard.code).toBe(2);
    expect(shard.stderr).toMatch(/--shard: the Job sets it/);
    expect(shard.stdout).toBe('');
  });
});
