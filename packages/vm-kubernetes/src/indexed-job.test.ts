// The generated Indexed Job: parsed back with the client's own YAML loader (which deserializes
// each document into its typed model by apiVersion / kind), and
// its shell command run by a real /bin/sh with a stand-in `osharm` that prints its arguments.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Job, V1Role } from '@kubernetes/client-node';
import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { indexedJobFor, toYamlStream } from './index';

const runArgs = [
  '--model',
  'gpt-4.1',
  '--test-all-meta-path',
  'evaluation_examples/test_misuse.json',
  '--task',
  "it's; rm -rf / $(id)",
];

describe('indexedJobFor', () => {
  const yaml = toYamlStream(
    indexedJobFor({
      shards: 3,
      parallelism: 2,
      image: 'registry.example/osharm-runner:0.1.0',
      resultsPvc: 'osharm-results',
      namespace: 'osharm',
      envSecret: 'model-keys',
      runArgs,
    }),
  );
  const documents = loadAllYaml(yaml) as { kind: string }[];
  const job = documents[3] as V1Job;

  it('prints ServiceAccount, Role, RoleBinding and an Indexed Job the client deserializes', () => {
    expect(documents.map(d => d.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'Job']);
    expect(job.metadata?.namespace).toBe('osharm');
    expect(job.spec?.completionMode).toBe('Indexed');
    expect(job.spec?.completions).toBe(3);
    expect(job.spec?.parallelism).toBe(2);
    const pod = job.spec!.template.spec!;
    expect(pod.serviceAccountName).toBe('osharm-run');
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.volumes?.[0]?.persistentVolumeClaim?.claimName).toBe('osharm-results');
    const container = pod.containers[0]!;
    expect(container.image).toBe('registry.example/osharm-runner:0.1.0');
    expect(container.volumeMounts?.[0]?.mountPath).toBe('/results');
    expect(container.envFrom?.[0]?.secretRef?.name).toBe('model-keys');
    const role = documents[1] as V1Role;
    expect(role.rules?.flatMap(rule => rule.resources)).toEqual([
      'pods',
      'secrets',
      'pods/portforward',
      'networkpolicies',
    ]);
  });

  it('each index runs its shard K/N into its own results dir, the arguments untouched by the shell', () => {
    const command = job.spec!.template.spec!.containers[0]!.command!;
    const dir = mkdtempSync(join(tmpdir(), 'osharm-job-'));
    try {
      // A stand-in osharm that prints one argument per line.
      writeFileSync(
        join(dir, 'osharm'),
        '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n',
      );
      chmodSync(join(dir, 'osharm'), 0o755);
      for (const index of [0, 1, 2]) {
        const printed = execFileSync(command[0]!, command.slice(1), {
          encoding: 'utf8',
          env: { PATH: `${dir}:/usr/bin:/bin`, JOB_COMPLETION_INDEX: String(index) },
        });
        expect(printed.trimEnd().split('\n')).toEqual([
          'run',
          ...runArgs,
          '--provider',
          'kubernetes',
          '--shard',
          `${index + 1}/3`,
          '--result-dir',
          `/results/shard-${index + 1}`,
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --shard / --result-dir in the run arguments and keeps a named provider', () => {
    const base = { shards: 2, image: 'i', resultsPvc: 'p' };
    expect(() => indexedJobFor({ ...base, runArgs: ['--shard', '1/2'] })).toThrow(/--shard/);
    expect(() => indexedJobFor({ ...base, runArgs: ['--result-dir=x'] })).toThrow(/--result-dir/);
    expect(() => indexedJobFor({ ...base, shards: 0, runArgs: [] })).toThrow(/shards/);
    const job = indexedJobFor({ ...base, runArgs: ['--provider', 'podman'] })[3] as V1Job;
    const command = job.spec!.template.spec!.containers[0]!.command!;
    expect(command.filter(arg => arg === '--provider')).toHaveLength(1);
  });
});
