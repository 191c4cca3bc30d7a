// The provider contract (desktop-env's conformance checks) on the VMware provider — NOT against
// real VMware: vmrun is this package's stand-in (a simulated VM) and the guest a loopback HTTP
// server answering /screenshot and /platform. "Clean after revert" here means the stand-in VM was
// reverted to its snapshot; what runs after stop is what the stand-in still lists as running plus
// the provider's VM lock.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerConformanceChecks } from '@osharm/desktop-env/test';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createVmrunStandIn, type VmrunStandIn } from './vmrun-stand-in';
import { createVmwareProvider } from './vmware-provider';
import { vmLockPath } from './vmware-vm-lock';

// A 1×1 PNG: the stand-in guest's screenshot.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let root: string;
let standIn: VmrunStandIn;
let guest: Server;
let vmxPath: string;
let marks = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'osharm-vmware-conformance-'));
  vmxPath = join(root, 'vms', 'Ubuntu0', 'Ubuntu0.vmx');
  standIn = await createVmrunStandIn({ dir: join(root, 'bin'), vms: { [vmxPath]: {} } });
  guest = createServer((request, response) => {
    if (request.url === '/screenshot') response.writeHead(200, { 'content-type': 'image/png' });
    else if (request.url === '/platform') response.writeHead(200, { 'content-type': 'text/plain' });
    else response.writeHead(404);
    response.end(request.url === '/screenshot' ? PNG : 'Linux');
  });
  await new Promise<void>(resolve => guest.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  guest.closeAllConnections();
  await new Promise(resolve => guest.close(resolve));
  await standIn.cleanup();
  await rm(root, { recursive: true, force: true });
});

const provider = (vmrunPath: string) =>
  createVmwareProvider({
    vmxPath,
    vmrunPath,
    hostType: 'ws',
    serverPort: (guest.address() as AddressInfo).port,
    lockDir: join(root, 'locks'),
    pollIntervalMs: 10,
    env: {},
  });

/** Reverts the stand-in VM has had: a mark is "there" until the next revert. */
const reverts = async () => (await standIn.state())[vmxPath]!.reverts.length;

describe('VmwareProvider meets the provider contract (stand-in vmrun and guest, not real VMware)', () => {
  const checks = providerConformanceChecks({
    providerId: 'vmware',
    create: () => provider(standIn.vmrunPath),
    broken: () => provider(join(root, 'no-vmware', 'vmrun')),
    brokenMessage: /vmrun not found/,
    realGuest: false,
    mark: async () => {
      marks = await reverts();
    },
    marked: async () => (await reverts()) === marks,
    leftovers: async () => [
      ...Object.entries(await standIn.state())
        .filter(([, state]) => state.running)
        .map(([path]) => `running VM ${path}`),
      ...(existsSync(vmLockPath(vmxPath, join(root, 'locks'))) ? ['the VM lock'] : []),
    ],
    startTimeoutMs: 60_000,
  });
  for (const check of checks) it(check.name, check.run, check.timeoutMs);
});
