// The API stand-in's kubelet itself: a pod deleted while its container still starts is stopped
// once it has started, and settled() waits for that stop (CI once found a desktop pod left
// half-played by a test file whose stand-in had closed meanwhile).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import type { StandIn } from './__fixtures__/api-stand-in';
import { startStandIn } from './__fixtures__/api-stand-in';

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
});

it('stops a pod deleted while it starts, and settled() waits for that stop', async () => {
  const events: string[] = [];
  standIn = await startStandIn('osharm-test', async () => {
    events.push('starting');
    await sleep(300);
    events.push('started');
    return {
      host: '127.0.0.1',
      port: 1,
      podIP: '127.0.0.1',
      stop: async () => {
        await sleep(200);
        events.push('stopped');
      },
    };
  });
  standIn.readyAfterReads = 1;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${standIn!.url}/api/v1/namespaces/osharm-test/${path}`, {
      method,
      headers: { authorization: `Bearer ${standIn!.apiToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const secret = { metadata: { name: 'desk-token' }, data: { token: 'dG9rZW4=' } };
  expect((await api('POST', 'secrets', secret)).status).toBe(201);
  const env = [
    {
      name: 'OSHARM_GUEST_TOKEN',
      valueFrom: { secretKeyRef: { name: 'desk-token', key: 'token' } },
    },
  ];
  const pod = { metadata: { name: 'desk' }, spec: { containers: [{ name: 'desktop', env }] } };
  expect((await api('POST', 'pods', pod)).status).toBe(201);
  expect((await api('GET', 'pods/desk')).status).toBe(200); // the kubelet starts it
  expect(events).toEqual(['starting']);
  expect((await api('DELETE', 'pods/desk')).status).toBe(200);
  await standIn.settled();
  expect(events).toEqual(['starting', 'started', 'stopped']);
});
