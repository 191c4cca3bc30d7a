// podman (4.3 here) as the tests' kubelet: `podman kube play` of a Pod document, with what podman
// needs around it that a cluster's kubelet does itself (see docs/packages/vm-kubernetes.md § Tests).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Pod } from '@kubernetes/client-node';
import { dumpYaml } from '@kubernetes/client-node';
import { DEFAULT_DESKTOP_IMAGE } from '../index';
import type { KubeObject, PodTarget, RunPod } from './api-stand-in';

export const desktopImage = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

const workDir = mkdtempSync(join(tmpdir(), 'osharm-podman-kubelet-'));
process.once('exit', () => rmSync(workDir, { recursive: true, force: true }));

function hardLimits(): string[] {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const hard = (label: string): number =>
    Number(new RegExp(`^${label}\\s+\\S+\\s+(\\d+)`, 'm').exec(limits)?.[1] ?? 1024);
  const nofile = hard('Max open files');
  const nproc = Math.min(hard('Max processes'), 32768);
  return [`nofile=${nofile}:${nofile}`, `nproc=${nproc}:${nproc}`];
}
// Host engine settings, not the pod's: podman's default rlimits (nofile 1048576) are above this
// machine's hard limits and runc refuses them, and `kube play` has no --ulimit; a containers.conf
// for these commands only lowers the defaults to this process's hard limits (as vm-container does).
const containersConf = join(workDir, 'containers.conf');

/** podman's [major, minor] (0.0 when it is not installed). */
function podmanVersion(): readonly [number, number] {
  try {
    const text = execFileSync('podman', ['--version'], { encoding: 'utf8' });
    const [, major = '0', minor = '0'] = /(\d+)\.(\d+)/.exec(text) ?? [];
    return [Number(major), Number(minor)];
  } catch {
    return [0, 0];
  }
}
const [major, minor] = podmanVersion();
const atLeast = (wantMajor: number, wantMinor: number) =>
  major > wantMajor || (major === wantMajor && minor >= wantMinor);

/** The pod-level sysctls podSpecFor asks (a kubelet applies them; podman's kube play from 4.6 on). */
const POD_SYSCTLS = ['net.ipv4.ip_unprivileged_port_start=53'];
// podman < 4.6 ignores a Pod's securityContext.sysctls: this kubelet applies them as the engine's
// defaults instead (checked against the spec by kube-play.test.ts).
writeFileSync(
  containersConf,
  `[containers]\ndefault_ulimits = ${JSON.stringify(hardLimits())}\n${
    atLeast(4, 6) ? '' : `default_sysctls = ${JSON.stringify(POD_SYSCTLS)}\n`
  }`,
);

/** The sysctls this kubelet gives pods without podman reading them from the spec (see above). */
export const fixtureSysctls: readonly string[] = atLeast(4, 6) ? [] : POD_SYSCTLS;

const podmanArgs = (args: string[]) => ['--runtime', 'runc', ...args];
const podmanEnv = () => ({ ...process.env, CONTAINERS_CONF: containersConf });

/** Runs podman (with runc: podman 4.3's crun refuses this machine's hybrid cgroup layout). */
export function podman(args: string[]): string {
  return execFileSync('podman', podmanArgs(args), {
    encoding: 'utf8',
    env: podmanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
}
const podmanAsync = async (args: string[]): Promise<string> =>
  (
    await promisify(execFile)('podman', podmanArgs(args), {
      encoding: 'utf8',
      env: podmanEnv(),
      timeout: 120_000,
    })
  ).stdout;

const readIfExists = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** Why the podman tests cannot run here, or undefined. */
export function podmanSkipReason(): string | undefined {
  try {
    podman(['--version']);
  } catch {
    return 'podman is not installed (apt-get install -y podman uidmap runc)';
  }
  if (process.getuid?.() === 0 && !/^containers:/m.test(readIfExists('/etc/subuid'))) {
    return 'root podman has no subordinate ids for `hostUsers: false` (--userns=auto): run scripts/podman-userns-auto.sh';
  }
  try {
    podman(['image', 'inspect', desktopImage]);
  } catch {
    return `the desktop image ${desktopImage} is missing: build it with scripts/build-desktop-image.sh (OSHARM_DESKTOP_IMAGE names another)`;
  }
  return undefined;
}

/** Whether this podman's kube play honours `procMount: Unmasked` (podman ≥ 4.7; 4.3 ignores it). */
export function podmanHonoursProcMount(): boolean {
  return atLeast(4, 7);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise(resolve => server.close(resolve));
  return port;
}

/** A pod played by podman, and how to take it down again. */
export interface PlayedPod {
  readonly file: string;
  down(): Promise<void>;
}

/**
 * Plays `pod` (its document exactly, serialized by the client's dumpYaml) with its Secret's `data`:
 * podman 4.3 resolves secretKeyRef against a podman secret holding a Secret's `data` map as JSON,
 * and turns each emptyDir into a root-owned named volume on disk, where kubelet makes a memory
 * emptyDir a tmpfs the pod's user can write: those volumes are created first as tmpfs volumes for
 * uid 1000 (kube play then uses them). Their names are global in podman: two pods played at once
 * need different volume names.
 */
export async function playPod(pod: V1Pod, secretData: Record<string, string>): Promise<PlayedPod> {
  const name = pod.metadata!.name!;
  const secretName = pod.spec!.containers[0]!.env!.find(e => e.name === 'OSHARM_GUEST_TOKEN')!
    .valueFrom!.secretKeyRef!.name!;
  const secretFile = join(workDir, `${name}.secret.json`);
  writeFileSync(secretFile, JSON.stringify(secretData), { mode: 0o600 });
  await podmanAsync(['secret', 'create', secretName, secretFile]);
  rmSync(secretFile);
  const volumes = (pod.spec!.volumes ?? []).filter(v => v.emptyDir?.medium === 'Memory');
  // Only the volumes created here are removed again (a volume of that name made by someone else
  // makes `volume create` fail instead).
  const created: string[] = [];
  const file = join(workDir, `${name}.yaml`);
  const down = async (): Promise<void> => {
    await podmanAsync(['kube', 'down', file]).catch(() => undefined);
    // A play that failed part-way can leave a pod kube down does not know of.
    await podmanAsync(['pod', 'rm', '--force', '--ignore', name]).catch(() => undefined);
    for (const volume of created) {
      await podmanAsync(['volume', 'rm', '--force', volume]).catch(() => undefined);
    }
    await podmanAsync(['secret', 'rm', secretName]).catch(() => undefined);
  };
  try {
    for (const volume of volumes) {
      await podmanAsync([
        'volume',
        'create',
        '--opt',
        'type=tmpfs',
        '--opt',
        'device=tmpfs',
        '--opt',
        'o=uid=1000,gid=1000,mode=0777', // podman 4.3 refuses size= here (no project quota)
        volume.name,
      ]);
      created.push(volume.name);
    }
    writeFileSync(file, dumpYaml(pod));
    await podmanAsync(['kube', 'play', file]);
  } catch (error) {
    await down();
    throw error;
  }
  return { file, down };
}

/**
 * The stand-in API server's kubelet running the real desktop: the pod the provider sent, played by
 * podman with its guest port published on 127.0.0.1 (a kubelet reaches the pod's own network
 * namespace; podman 4.3 needs a hostPort for that) and its volumes named after the pod; both
 * changes are made to the played copy only.
 */
export const podmanKubelet: RunPod = async (
  pod: KubeObject,
  secret: KubeObject,
): Promise<PodTarget> => {
  const port = await freePort();
  const played = structuredClone(pod) as unknown as V1Pod;
  delete (played as { status?: unknown }).status;
  played.metadata = { name: pod.metadata.name, labels: pod.metadata.labels };
  const guestPort = played.spec!.containers[0]!.ports![0]!;
  guestPort.hostIP = '127.0.0.1';
  guestPort.hostPort = port;
  // podman's volume names are global: the played copy's volumes take the pod's name, so pods run
  // side by side (a kubelet keeps each pod's emptyDirs apart itself).
  const rename = (volume: string) => `${pod.metadata.name}-${volume}`;
  for (const volume of played.spec!.volumes ?? []) volume.name = rename(volume.name);
  for (const mount of played.spec!.containers[0]!.volumeMounts ?? [])
    mount.name = rename(mount.name);
  const running = await playPod(played, secret.data ?? {});
  return { host: '127.0.0.1', port, podIP: '127.0.0.1', stop: running.down };
};
