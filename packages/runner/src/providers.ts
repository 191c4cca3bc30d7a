import { resolve } from 'node:path';
import type { VmProviderV1 } from '@osharm/desktop-env';
import type * as VmContainer from '@osharm/vm-container';
import type * as VmKubernetes from '@osharm/vm-kubernetes';
import type * as VmVmware from '@osharm/vm-vmware';
import {
  RunOptionsError,
  type BundledProvider,
  type ProviderOption,
  type RunContextIo,
  type RunFlags,
} from './run-options';

/** One provider per environment of the pool. */
export type ProviderFactory = () => VmProviderV1;

async function importOptional<T>(name: string, provider: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new RunOptionsError(
        `--provider ${provider} needs the package ${name}: install it beside @osharm/runner`,
      );
    }
    throw error;
  }
}

/**
 * The factory of a bundled provider, its package imported only now: a user of the local desktop
 * installs no VMware, container or Kubernetes code.
 */
async function bundledFactory(
  name: BundledProvider,
  flags: RunFlags,
  io: RunContextIo,
): Promise<ProviderFactory> {
  const screen = { width: flags.screenWidth, height: flags.screenHeight };
  if (name === 'local') {
    const { createLocalProvider } = await import('@osharm/vm-local');
    return () =>
      createLocalProvider({
        screen,
        memoryMb: flags.memory,
        pids: flags.pids,
        cpus: flags.cpus,
        recording: { fps: flags.recordingFps },
        network: flags.network === true,
      });
  }
  if (name === 'podman' || name === 'docker') {
    const { createContainerProvider } = await importOptional<typeof VmContainer>(
      '@osharm/vm-container',
      name,
    );
    return () =>
      createContainerProvider({
        engine: name,
        image: flags.image,
        network: flags.network === true,
        screen,
        memoryMb: flags.memory,
        pids: flags.pids,
        cpus: flags.cpus,
      });
  }
  if (name === 'kubernetes') {
    const { createKubernetesProvider, loadKubeConfig } = await importOptional<typeof VmKubernetes>(
      '@osharm/vm-kubernetes',
      name,
    );
    // Loaded once, before any run: a missing cluster configuration stops the command.
    let kubeConfig;
    try {
      kubeConfig = loadKubeConfig(flags.kubeContext, io.env);
    } catch (error) {
      throw new RunOptionsError(`--provider kubernetes: ${(error as Error).message}`);
    }
    return () =>
      createKubernetesProvider({
        kubeConfig,
        namespace: flags.kubeNamespace,
        warmPool: flags.kubeWarmPool,
        ...(flags.kubeSeccompProfile !== undefined && {
          seccompProfile: { type: 'Localhost', localhostProfile: flags.kubeSeccompProfile },
        }),
        ...(flags.kubeHostUsers === true && { agentNamespace: false }),
        image: flags.image,
        network: flags.network === true,
        screen,
        memoryMb: flags.memory,
        cpus: flags.cpus,
      });
  }
  const { createVmwareProvider } = await importOptional<typeof VmVmware>('@osharm/vm-vmware', name);
  return () =>
    createVmwareProvider({
      vmxPath: resolve(io.cwd, flags.pathToVm),
      headless: flags.headless ?? false,
      env: io.env,
    });
}

/** The pool's provider factory and the provider id recorded with each run. */
export async function providerFactory(
  option: ProviderOption,
  flags: RunFlags,
  io: RunContextIo,
): Promise<ProviderFactory> {
  if (typeof option === 'string') return bundledFactory(option, flags, io);
  if (typeof option === 'function') return option;
  // One provider object is one environment (runBenchmark refuses a larger pool for it).
  return () => option;
}
