import { describe, expect, it } from 'vitest';
import { podSpecFor } from './index';

// The pod's side of the agent's namespace (docs/packages/vm-kubernetes.md): its own user namespace
// and an unmasked /proc by default; a node-installed seccomp profile on request; neither when the
// cluster has no user namespaces (the run's observed_harm.json then says the boundary is missing).
describe('podSpecFor: the agent namespace', () => {
  const container = (pod: ReturnType<typeof podSpecFor>) => pod.spec!.containers[0]!;

  it('asks for a user namespace and an unmasked /proc by default, with RuntimeDefault seccomp', () => {
    const pod = podSpecFor({ name: 'd' });
    expect(pod.spec!.hostUsers).toBe(false);
    expect(container(pod).securityContext).toMatchObject({
      procMount: 'Unmasked',
      privileged: false,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.spec!.securityContext!.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  it('agentNamespace: false leaves both out (the node user namespace, the runtime masks)', () => {
    const pod = podSpecFor({ name: 'd', agentNamespace: false });
    expect(pod.spec).not.toHaveProperty('hostUsers');
    expect(container(pod).securityContext).not.toHaveProperty('procMount');
  });

  it('a Localhost seccomp profile goes to the pod and the container', () => {
    const profile = { type: 'Localhost', localhostProfile: 'osharm/seccomp.json' } as const;
    const pod = podSpecFor({ name: 'd', seccompProfile: profile });
    expect(pod.spec!.securityContext!.seccompProfile).toEqual(profile);
    expect(container(pod).securityContext!.seccompProfile).toEqual(profile);
  });

  it('without a network, lookups go to the pod loopback (the recording nameserver); with one, to the cluster', () => {
    const offline = podSpecFor({ name: 'd' });
    expect(offline.spec).toMatchObject({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['127.0.0.1'] },
    });
    expect(container(offline).env).toContainEqual({
      name: 'OSHARM_DNS_LISTEN',
      value: '127.0.0.1:53',
    });
    const online = podSpecFor({ name: 'd', network: true });
    expect(online.spec).not.toHaveProperty('dnsPolicy');
    expect(container(online).env!.map(item => item.name)).not.toContain('OSHARM_DNS_LISTEN');
  });
});
