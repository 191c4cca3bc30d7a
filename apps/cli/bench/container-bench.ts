// Container desktop vs the embedded desktop, side by side in one run. Run:
//   pnpm --filter @osharm/cli bench:container   (builds first; needs podman and the desktop image)
// (here, not in vm-container: the two providers' packages never import each other)
// OSHARM_DESKTOP_IMAGE picks the image; OSHARM_CONTAINER_ENGINE podman (default) or docker.
// Prints one table: start → first screenshot, revert → first screenshot, screenshot round trip
// (median of 20), memory of an idle desktop (its cgroup's memory.current after 10 s), image size.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createGuestClient, type VmProviderV1 } from '@osharm/desktop-env';
import { createLocalProvider } from '@osharm/vm-local';
import { createContainerProvider, DEFAULT_DESKTOP_IMAGE } from '@osharm/vm-container';

const engine = (process.env.OSHARM_CONTAINER_ENGINE ?? 'podman') as 'podman' | 'docker';
const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const since = (started: number): number => Math.round(performance.now() - started);

interface Figures {
  startMs: number;
  revertMs: number;
  screenshotMs: number;
  idleMemoryMb: number | undefined;
}

async function measure(provider: VmProviderV1, memory: () => number | undefined): Promise<Figures> {
  let started = performance.now();
  let client = createGuestClient(await provider.start());
  await client.screenshot();
  const startMs = since(started);
  const rounds: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    const one = performance.now();
    await client.screenshot();
    rounds.push(performance.now() - one);
  }
  await new Promise(resolve => setTimeout(resolve, 10_000));
  const idleMemoryMb = memory();
  await client.close();
  started = performance.now();
  client = createGuestClient(await provider.revert());
  await client.screenshot();
  const revertMs = since(started);
  await client.close();
  await provider.stop();
  return { startMs, revertMs, screenshotMs: Math.round(median(rounds)), idleMemoryMb };
}

function cgroupMemoryMb(path: string): number | undefined {
  try {
    return Math.round(Number(readFileSync(path, 'utf8')) / 1048576);
  } catch {
    return undefined;
  }
}

const container = createContainerProvider({ engine, image });
const containerFigures = await measure(container, () => {
  const name = container.containerName();
  if (!name) return undefined;
  const text = execFileSync(engine, ['stats', '--no-stream', '--format', '{{.MemUsage}}', name], {
    encoding: 'utf8',
  });
  const match = /^([\d.]+)\s*([kMG]i?B)/.exec(text.trim());
  if (!match) return undefined;
  const scale: Record<string, number> = {
    kB: 1 / 1000,
    kiB: 1 / 1024,
    MB: 1,
    MiB: 1,
    GB: 1000,
    GiB: 1024,
  };
  return Math.round(Number(match[1]) * (scale[match[2] as string] ?? 1));
});
const local = createLocalProvider();
const localFigures = await measure(local, () => {
  const pid = local.pid();
  if (!pid) return undefined;
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find(entry => entry.includes(':memory:') || entry.startsWith('0::'));
  const path = line?.split(':')[2];
  return path
    ? (cgroupMemoryMb(`/sys/fs/cgroup/memory${path}/memory.usage_in_bytes`) ??
        cgroupMemoryMb(`/sys/fs/cgroup${path}/memory.current`))
    : undefined;
});
const size = Number(
  execFileSync(engine, ['image', 'inspect', '--format', '{{.Size}}', image], { encoding: 'utf8' }),
);

const rows: [string, string, string][] = [
  ['start → first screenshot', `${containerFigures.startMs} ms`, `${localFigures.startMs} ms`],
  ['revert → first screenshot', `${containerFigures.revertMs} ms`, `${localFigures.revertMs} ms`],
  [
    'screenshot round trip (median of 20)',
    `${containerFigures.screenshotMs} ms`,
    `${localFigures.screenshotMs} ms`,
  ],
  [
    'memory of an idle desktop',
    containerFigures.idleMemoryMb === undefined ? 'n/a' : `${containerFigures.idleMemoryMb} MiB`,
    localFigures.idleMemoryMb === undefined ? 'n/a' : `${localFigures.idleMemoryMb} MiB`,
  ],
  ['image size', `${Math.round(size / 1048576)} MiB (${image})`, '–'],
];
console.log(`| figure | ${engine} container | embedded (vm-local) |\n| --- | --- | --- |`);
for (const [label, containerValue, localValue] of rows) {
  console.log(`| ${label} | ${containerValue} | ${localValue} |`);
}
