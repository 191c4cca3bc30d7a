// A loopback stand-in for the parts of the Kubernetes API the provider calls: create / read /
// list / delete of pods, secrets and networkpolicies in a namespace, and pods/portforward over a
// WebSocket (the channel protocol: one binary frame per chunk, first byte the channel, first frame
// of each channel the port). A "kubelet" makes each created pod Ready after a few reads and starts a
// stand-in guest server for it that answers only the token found in the pod's Secret.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { WebSocketServer } from 'ws';

export interface KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
  };
  spec?: {
    containers?: {
      env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
      readinessProbe?: { tcpSocket?: { port: number } };
    }[];
  };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Where a running pod's guest port is reached from the stand-in (port-forward, readiness). */
export interface PodTarget {
  readonly host: string;
  readonly port: number;
  readonly podIP: string;
  /** Stops the pod's container. */
  stop(): Promise<void>;
}

/**
 * How pods run. The default starts a stand-in guest server per pod; a test can run the real
 * desktop instead (src/__fixtures__/podman-kubelet.ts).
 */
export type RunPod = (pod: KubeObject, secret: KubeObject) => Promise<PodTarget>;

/** What the stand-in kubelet does with a new pod. */
type PodFate = 'ready' | 'image-pull-error' | 'never-ready';

export interface StandIn {
  readonly url: string;
  /** The bearer token the kubeconfig must send. */
  readonly apiToken: string;
  /** `METHOD /path` of every request, in order. */
  readonly requests: string[];
  /** Stored objects by kind (`pods`, `secrets`, `networkpolicies`) and name. */
  readonly store: Record<'pods' | 'secrets' | 'networkpolicies', Map<string, KubeObject>>;
  /** Fate of the next pods (default 'ready'). */
  fate: PodFate;
  /** Reads of a pod before it turns Ready. */
  readyAfterReads: number;
  /** `pod-ip` mode: the pod IP (127.0.0.x) its guest listens on at port 5000. */
  podIps: boolean;
  /** Answer this status to POSTs of this kind. */
  refuse: Partial<Record<string, number>>;
  /** Port-forward WebSockets opened, by pod name. */
  readonly forwards: Map<string, number>;
  /** Resolves once every pod started or deleted so far has finished starting or stopping. */
  settled(): Promise<void>;
  /** Stops a pod's guest server (the pod object stays): a desktop that died. */
  killGuest(name: string): void;
  /** A kubeconfig (YAML) pointing at the stand-in. */
  kubeconfig(namespace?: string): string;
  close(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};
const notFound = (response: ServerResponse, name: string): void =>
  json(response, 404, {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: `"${name}" not found`,
  });

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

/** A guest server that answers /platform for the right token only (and 401 otherwise). */
async function guestFor(token: string, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end('{"status":"error"}');
      return;
    }
    if (request.url === '/platform') response.writeHead(200).end('Linux');
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

/** TCP connect succeeds: the spec's tcpSocket readiness probe. */
function probe(host: string, port: number): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect(port, host);
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startStandIn(namespace = 'osharm-test', runPod?: RunPod): Promise<StandIn> {
  const apiToken = randomUUID();
  const store = {
    pods: new Map<string, KubeObject>(),
    secrets: new Map<string, KubeObject>(),
    networkpolicies: new Map<string, KubeObject>(),
  };
  const reads = new Map<string, number>();
  const targets = new Map<string, PodTarget>();
  const starting = new Map<string, Promise<PodTarget | undefined>>();
  const stopping = new Set<Promise<void>>();
  // Every start under way, deleted or not (a pod deleted while it starts is stopped once started):
  // settled() and close() wait for starts and stops alike, or a half-played pod outlives the test.
  const inFlight = new Set<Promise<unknown>>();
  const track = (stop: Promise<void>): void => {
    const stopped = stop.finally(() => stopping.delete(stopped));
    stopping.add(stopped);
  };
  const quiesce = async (): Promise<void> => {
    while (inFlight.size > 0 || stopping.size > 0) await Promise.all([...inFlight, ...stopping]);
  };
  const forwards = new Map<string, number>();
  let nextIp = 2 + Math.floor(Math.random() * 200);

  const state: Omit<StandIn, 'url' | 'kubeconfig' | 'close' | 'killGuest' | 'settled'> = {
    apiToken,
    requests: [],
    store,
    fate: 'ready',
    readyAfterReads: 2,
    podIps: false,
    refuse: {},
    forwards,
  };

  /** The stand-in kubelet: Pending, then Running + Ready with a guest for the Secret's token. */
  async function advance(pod: KubeObject): Promise<void> {
    const name = pod.metadata.name;
    const count = (reads.get(name) ?? 0) + 1;
    reads.set(name, count);
    const fate = (pod.metadata.annotations?.['stand-in/fate'] ?? 'ready') as PodFate;
    if (fate === 'image-pull-error') {
      pod.status = {
        phase: 'Pending',
        containerStatuses: [
          { name: 'desktop', ready: false, state: { waiting: { reason: 'ErrImagePull' } } },
        ],
      };
      return;
    }
    if (fate === 'never-ready' || count < state.readyAfterReads) return;
    const target = targets.get(name);
    if (target) {
      // Ready once the spec's readiness probe (tcpSocket) connects.
      const probePort = pod.spec?.containers?.[0]?.readinessProbe?.tcpSocket?.port;
      const ready = probePort === undefined || (await probe(target.host, target.port));
      pod.status = {
        phase: 'Running',
        podIP: target.podIP,
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [{ name: 'desktop', ready, state: { running: {} } }],
      };
      return;
    }
    if (starting.has(name)) return;
    const ref = pod.spec?.containers?.[0]?.env?.find(e => e.name === 'OSHARM_GUEST_TOKEN')
      ?.valueFrom?.secretKeyRef;
    const secret = ref ? store.secrets.get(ref.name) : undefined;
    if (!ref || !secret?.data?.[ref.key]) {
      pod.status = {
        phase: 'Pending',
        containerStatuses: [
          { name: 'desktop', state: { waiting: { reason: 'CreateContainerConfigError' } } },
        ],
      };
      return;
    }
    // The container starts in the background; later reads see it running, then ready.
    const run = (runPod ?? runStandInGuest)(pod, secret).then(
      started => {
        if (store.pods.has(name)) targets.set(name, started);
        else track(started.stop()); // deleted while it started
        return started;
      },
      (error: unknown) => {
        pod.status = { phase: 'Failed', reason: `StartError: ${String(error)}` };
        return undefined;
      },
    );
    starting.set(name, run);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
    if (!runPod) await run; // the stand-in guest starts at once
    await advance(pod);
  }

  /** The default: a stand-in guest server answering the token from the pod's Secret. */
  async function runStandInGuest(pod: KubeObject, secret: KubeObject): Promise<PodTarget> {
    const ref = pod.spec!.containers![0]!.env!.find(e => e.name === 'OSHARM_GUEST_TOKEN')!
      .valueFrom!.secretKeyRef!;
    const token = Buffer.from(secret.data![ref.key]!, 'base64').toString();
    const ip = state.podIps ? `127.0.0.${nextIp++}` : '127.0.0.1';
    const guest = await guestFor(token, ip, state.podIps ? 5000 : 0);
    return {
      host: ip,
      port: (guest.address() as AddressInfo).port,
      podIP: ip,
      stop: async () => {
        guest.close();
        guest.closeAllConnections();
      },
    };
  }

  const api = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      state.requests.push(`${request.method} ${url.pathname}`);
      if (request.headers.authorization !== `Bearer ${apiToken}`) {
        json(response, 401, { kind: 'Status', code: 401, reason: 'Unauthorized' });
        return;
      }
      const match =
        /^\/(?:api\/v1|apis\/networking\.k8s\.io\/v1)\/namespaces\/([^/]+)\/(pods|secrets|networkpolicies)(?:\/([^/]+))?$/.exec(
          url.pathname,
        );
      if (!match || match[1] !== namespace) {
        json(response, 404, { kind: 'Status', code: 404, reason: 'NotFound' });
        return;
      }
      const kind = match[2] as keyof typeof store;
      const name = match[3];
      const objects = store[kind];
      if (request.method === 'POST' && !name) {
        const refused = state.refuse[kind];
        const object = JSON.parse(await readBody(request)) as KubeObject;
        if (refused) {
          json(response, refused, { kind: 'Status', code: refused, reason: 'Forbidden' });
          return;
        }
        if (objects.has(object.metadata.name)) {
          json(response, 409, { kind: 'Status', code: 409, reason: 'AlreadyExists' });
          return;
        }
        object.metadata.uid = randomUUID();
        if (kind === 'pods') {
          object.metadata.annotations = {
            ...object.metadata.annotations,
            'stand-in/fate': state.fate,
          };
          object.status = { phase: 'Pending' };
        }
        objects.set(object.metadata.name, object);
        json(response, 201, object);
        return;
      }
      if (request.method === 'GET' && !name) {
        const selector = url.searchParams.get('labelSelector');
        const [key, value] = selector ? selector.split('=') : [];
        const items = [...objects.values()].filter(o => !key || o.metadata.labels?.[key] === value);
        json(response, 200, { kind: 'List', apiVersion: 'v1', metadata: {}, items });
        return;
      }
      const object = name ? objects.get(name) : undefined;
      if (!name || !object) {
        notFound(response, name ?? '');
        return;
      }
      if (request.method === 'GET') {
        if (kind === 'pods') await advance(object);
        json(response, 200, object);
        return;
      }
      if (request.method === 'DELETE') {
        objects.delete(name);
        const target = targets.get(name);
        targets.delete(name);
        starting.delete(name);
        // As an API server: the delete is answered at once, the kubelet ends the pod afterwards.
        if (target) track(target.stop());
        json(
          response,
          200,
          kind === 'pods'
            ? object
            : { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 },
        );
        return;
      }
      json(response, 405, { kind: 'Status', code: 405 });
    })().catch(error => {
      json(response, 500, { kind: 'Status', code: 500, message: String(error) });
    });
  });

  // pods/portforward: the channel protocol over a WebSocket, to the pod's stand-in guest.
  const sockets = new WebSocketServer({
    noServer: true,
    handleProtocols: p => p.values().next().value ?? false,
  });
  api.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    state.requests.push(`WS ${url.pathname}`);
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/.exec(url.pathname);
    const target = match ? targets.get(match[2]!) : undefined;
    const port = Number(url.searchParams.get('ports'));
    if (request.headers.authorization !== `Bearer ${apiToken}` || !match || !target) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    forwards.set(match[2]!, (forwards.get(match[2]!) ?? 0) + 1);
    sockets.handleUpgrade(request, socket, head, ws => {
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16LE(port);
      ws.send(Buffer.concat([Buffer.from([0]), portBytes]));
      ws.send(Buffer.concat([Buffer.from([1]), portBytes]));
      // Nothing listening any more: an error on channel 1, then close (as kubelet does).
      const upstream = connect(target.port, target.host);
      upstream.on('data', chunk => ws.send(Buffer.concat([Buffer.from([0]), chunk])));
      upstream.on('close', () => ws.close());
      upstream.on('error', () => {
        if (ws.readyState === ws.OPEN) {
          ws.send(Buffer.concat([Buffer.from([1]), Buffer.from('connection refused')]));
        }
        ws.close();
      });
      ws.on('message', (data: Buffer) => {
        if (data[0] === 0) upstream.write(data.subarray(1));
      });
      ws.on('close', () => upstream.destroy());
    });
  });

  await new Promise<void>(resolve => api.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    killGuest(name: string) {
      void targets.get(name)?.stop();
    },
    kubeconfig: (ns = namespace) =>
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: stand-in`,
        // The client speaks plain HTTP only with TLS verification off (the stand-in has no TLS).
        `  cluster: { server: "${url}", insecure-skip-tls-verify: true }`,
        'users:',
        `- name: tester`,
        `  user: { token: "${apiToken}" }`,
        'contexts:',
        `- name: stand-in`,
        `  context: { cluster: stand-in, user: tester, namespace: ${ns} }`,
        'current-context: stand-in',
        '',
      ].join('\n'),
    settled: quiesce,
    async close() {
      await Promise.all([...targets.values()].map(target => target.stop()));
      await quiesce();
      for (const target of targets.values()) await target.stop();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await new Promise(resolve => {
        api.close(resolve);
        api.closeAllConnections();
      });
    },
  });
}
