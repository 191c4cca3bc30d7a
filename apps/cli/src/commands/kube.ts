import { Command } from 'commander';
import { ExitCode, handle, UsageError, type CliIo, type CliRun } from '../cli-io';

/** Flags of `osharm kube job`. */
interface KubeJobFlags {
  shards: number;
  image: string;
  resultsPvc: string;
  name?: string;
  namespace?: string;
  parallelism?: number;
  envSecret?: string;
}

const positive = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new UsageError(`${name}: expected a whole number ≥ 1, got "${value}"`);
  }
  return parsed;
};

/** `osharm kube`: Kubernetes manifests (the provider itself is `osharm run --provider kubernetes`). */
export function kubeCommand(run: CliRun): Command {
  const job = new Command('job')
    .description(
      'print the YAML of an Indexed Job running osharm run in N shards (pod K runs --shard K/N into /results/shard-K of a shared volume), with its ServiceAccount, Role and RoleBinding',
    )
    .argument('[run-args...]', 'osharm run arguments after --, the same for every shard')
    .requiredOption('--shards <n>', 'shards N (the Job completions)', positive('--shards'))
    .requiredOption('--image <name>', 'the runner image: Node 22 and the osharm CLI as `osharm`')
    .requiredOption(
      '--results-pvc <name>',
      'PersistentVolumeClaim mounted at /results (ReadWriteMany when pods land on several nodes)',
    )
    .option('--name <name>', 'name of the Job and its ServiceAccount / Role (default osharm-run)')
    .option('--namespace <ns>', 'namespace of every object (default: the one kubectl applies to)')
    .option('--parallelism <n>', 'shards at once (default: all)', positive('--parallelism'))
    .option(
      '--env-secret <name>',
      "a Secret whose keys become the runner's environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, …)",
    )
    .addHelpText(
      'after',
      `
Example:
  osharm kube job --shards 3 --image registry.example/osharm-runner:0.1.0 \\
    --results-pvc osharm-results --env-secret model-keys -- \\
    --model gpt-4.1 --test-all-meta-path evaluation_examples/test_misuse.json \\
    --image registry.example/osharm-desktop:0.1.0 --num-envs 2 | kubectl apply -f -
Without --provider in the run arguments each shard runs --provider kubernetes (desktop pods in
the same namespace, reached at their pod IP). Then merge: osharm merge /results/shard-* --into
/results/merged (docs/scaling.md). Exit codes: 0 printed, 2 usage.`,
    )
    .action(
      handle(run, (runArgs: string[], flags: KubeJobFlags) => jobAction(runArgs, flags, run.io)),
    );
  return new Command('kube')
    .description('Kubernetes manifests for sharded runs (docs/scaling.md)')
    .addCommand(job);
}

async function jobAction(runArgs: string[], flags: KubeJobFlags, io: CliIo): Promise<number> {
  // The Kubernetes client is large: loaded only for this command.
  const { indexedJobFor, toYamlStream } = await import('@osharm/vm-kubernetes');
  let objects;
  try {
    objects = indexedJobFor({ ...flags, runArgs });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  io.stdout(toYamlStream(objects));
  return ExitCode.ok;
}
