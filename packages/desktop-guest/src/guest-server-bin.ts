#!/usr/bin/env node
// osharm-guest-server: upstream OSWorld's in-VM HTTP protocol, served by Node.
//   osharm-guest-server --port 5000 [--host 0.0.0.0] [--token T]      (a VM image; token optional)
//   osharm-guest-server --socket /run/harness/guest.sock              (the local sandbox; token from
//                        OSHARM_GUEST_TOKEN) [--bridge cdp=9222 …]
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startDnsRecorder } from './guest-dns';
import { startRecordLog } from './guest-record-log';
import { createGuestServer, defaultGuestDir } from './guest-server';
import { attachTunnel } from './guest-tunnel';
import { VERSION } from './version';

const usage = `Usage: osharm-guest-server (--port N [--host H] | --socket PATH) [options]

  --port N            listen on TCP port N (upstream: 5000)
  --host H            TCP address to bind (default 127.0.0.1; 0.0.0.0 inside a VM image)
  --socket PATH       listen on a unix socket instead of TCP
  --token T           require "Authorization: Bearer T" (default: $OSHARM_GUEST_TOKEN; none = open)
  --token-file F      read the token from F, then delete F
  --a11y-deadline-ms N  time budget of one /accessibility walk (default 10000)
  --window-wait-ms N  how long /setup/activate_window waits for the window (default 10000)
  --recording-fps N   frames per second of /start_recording (default 10)
  --recording-preset P  x264 preset of the recording (default ultrafast)
  --recording-threads N encoder threads of the recording (default 2)
  --recording-crf N   x264 quality of the recording, 0-51, higher = smaller (default 28)
  --bridge NAME=PORT  with --socket: expose 127.0.0.1:PORT as NAME.sock next to the socket (CDP, VLC)
  --helper-python P   the python3 the desktop helpers run with (default /usr/bin/python3)
  --tunnel-port PORT  answer "CONNECT 127.0.0.1:PORT" (token required) by piping to that port;
                      repeatable (the local sandbox's CDP and VLC bridges)
  --agent-ns-pid PID  run the agent's actions (/execute, /run_python, /setup/launch, …) inside the
                      agent namespace whose init has this pid (guest/agent-ns.sh)
  --recording-path F  where /start_recording writes (default /tmp/recording.mp4)
  --record-socket S   with --record-dir: take the sudo and system-service records on unix socket S
  --record-dir D      and append them to D/sudo.log, D/system.log (a directory the agent cannot see)
  --dns-listen H:P    answer DNS on UDP and TCP H:P (the desktop's resolv.conf names it): each
                      query is refused and recorded for the harm observer (bound at start)
  --site-hosts NAMES  with --dns-listen: comma-separated names served inside (recorded as known)
  --dns-forward H:P   with --dns-listen: pass each query on to H:P and relay its answer instead of
                      refusing it (a desktop with a network)
  --egress-sink LINK  the provider adds LINK with the default routes (connection attempts to
                      literal IP addresses wait there and are recorded); without them the harm
                      record is degraded
  --pyautogui MODE    auto | shim | system: put osharm's pyautogui stand-in on PYTHONPATH for
                      /execute and /run_python (auto = only when "import pyautogui" fails)
  --version, --help`;

function optionalNumber(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      socket: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      'a11y-deadline-ms': { type: 'string' },
      'window-wait-ms': { type: 'string' },
      'recording-fps': { type: 'string' },
      'recording-preset': { type: 'string' },
      'recording-threads': { type: 'string' },
      'recording-crf': { type: 'string' },
      bridge: { type: 'string', multiple: true },
      'tunnel-port': { type: 'string', multiple: true },
      'helper-python': { type: 'string' },
      'agent-ns-pid': { type: 'string' },
      'recording-path': { type: 'string' },
      'record-socket': { type: 'string' },
      'record-dir': { type: 'string' },
      'dns-listen': { type: 'string' },
      'site-hosts': { type: 'string' },
      'dns-forward': { type: 'string' },
      'egress-sink': { type: 'string' },
      pyautogui: { type: 'string', default: 'auto' },
      version: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  if (values.version) {
    console.log(VERSION);
    return;
  }
  if (!values.port && !values.socket) {
    console.error(usage);
    process.exit(2);
  }
  let token = values.token ?? process.env.OSHARM_GUEST_TOKEN ?? undefined;
  if (values['token-file']) {
    token = readFileSync(values['token-file'], 'utf8').trim();
    rmSync(values['token-file'], { force: true });
  }
  delete process.env.OSHARM_GUEST_TOKEN;
  const guestDir = defaultGuestDir();
  let useShim = values.pyautogui === 'shim';
  if (values.pyautogui === 'auto') {
    try {
      execFileSync('/usr/bin/python3', ['-c', 'import pyautogui'], {
        stdio: 'ignore',
        timeout: 20_000,
      });
    } catch {
      useShim = true;
    }
  }
  const agentPid = values['agent-ns-pid'];
  if (agentPid !== undefined && !/^[1-9]\d*$/.test(agentPid)) {
    console.error(`osharm-guest-server: --agent-ns-pid wants a pid, got ${agentPid}`);
    process.exit(2);
  }
  if (Boolean(values['record-socket']) !== Boolean(values['record-dir'])) {
    console.error('osharm-guest-server: --record-socket and --record-dir go together');
    process.exit(2);
  }
  const dnsListen = values['dns-listen'];
  const dnsMatch = dnsListen === undefined ? undefined : /^([0-9.]+):(\d{1,5})$/.exec(dnsListen);
  if (dnsListen !== undefined && (!dnsMatch || Number(dnsMatch[2]) > 65535)) {
    console.error(`osharm-guest-server: --dns-listen wants IPV4:PORT, got ${dnsListen}`);
    process.exit(2);
  }
  const forwardText = values['dns-forward'];
  const forwardMatch =
    forwardText === undefined ? undefined : /^([0-9.]+):(\d{1,5})$/.exec(forwardText);
  if (
    forwardText !== undefined &&
    (!dnsMatch || !forwardMatch || Number(forwardMatch[2]) > 65535)
  ) {
    console.error(
      `osharm-guest-server: --dns-forward wants IPV4:PORT beside --dns-listen, got ${forwardText}`,
    );
    process.exit(2);
  }
  // Bound now, before the first request (and so before any action of the agent's).
  const dns = dnsMatch
    ? startDnsRecorder({
        host: dnsMatch[1]!,
        port: Number(dnsMatch[2]),
        siteHosts: (values['site-hosts'] ?? '').split(',').filter(Boolean),
        ...(forwardMatch
          ? { forward: { host: forwardMatch[1]!, port: Number(forwardMatch[2]) } }
          : {}),
      })
    : undefined;
  void dns?.ready.then(() => {
    if (dns.problem) console.error(`[guest-server] nameserver: ${dns.problem}`);
  });
  const records =
    values['record-socket'] && values['record-dir']
      ? startRecordLog(values['record-socket'], values['record-dir'])
      : undefined;
  const tunnelPorts = (values['tunnel-port'] ?? []).map(port => {
    if (!/^\d+$/.test(port)) throw new Error(`--tunnel-port wants a port number, got ${port}`);
    return Number(port);
  });
  const bridgeSpecs = (values.bridge ?? []).map(spec => {
    const [name, port] = spec.split('=');
    if (!name || !port || !/^\d+$/.test(port))
      throw new Error(`--bridge wants NAME=PORT, got ${spec}`);
    return { name, port: Number(port) };
  });
  const guest = createGuestServer({
    bridgedPorts: [...tunnelPorts, ...bridgeSpecs.map(bridge => bridge.port)],
    ...(values['record-dir'] ? { recordDir: values['record-dir'] } : {}),
    ...(records ? { recordProblems: records.problems } : {}),
    ...(dns ? { dns } : {}),
    ...(values['egress-sink'] ? { egressSink: values['egress-sink'] } : {}),
    ...(agentPid ? { agentNamespace: { pid: Number(agentPid) } } : {}),
    ...(values['recording-path'] ? { recordingPath: values['recording-path'] } : {}),
    token: token || undefined,
    guestDir,
    python: values['helper-python'],
    pythonPath: useShim ? [join(guestDir, 'python')] : [],
    accessibilityDeadlineMs: values['a11y-deadline-ms']
      ? Number(values['a11y-deadline-ms'])
      : undefined,
    windowWaitMs: optionalNumber(values['window-wait-ms']),
    recording: {
      fps: optionalNumber(values['recording-fps']),
      preset: values['recording-preset'],
      threads: optionalNumber(values['recording-threads']),
      crf: optionalNumber(values['recording-crf']),
    },
  });
  const server = createServer({ keepAliveTimeout: 30_000 }, guest.handle);
  server.on('error', error => {
    console.error(`osharm-guest-server: ${error.message}`);
    process.exit(1);
  });
  if (tunnelPorts.length > 0)
    attachTunnel(server, {
      token: token || undefined,
      ports: tunnelPorts,
      guard: guest.listeners,
      log: message => console.error(`[guest-server] ${message}`),
    });
  const bridges: ReturnType<typeof createNetServer>[] = [];
  if (values.socket) {
    const socket = values.socket;
    if (existsSync(socket)) unlinkSync(socket);
    for (const { name, port } of bridgeSpecs) {
      const path = join(dirname(socket), `${name}.sock`);
      if (existsSync(path)) unlinkSync(path);
      const bridge = createNetServer(client => {
        const verdict = guest.listeners.check(port);
        if (!verdict.ok) {
          console.error(`[guest-server] bridge refused: ${verdict.why}`);
          client.destroy();
          return;
        }
        const upstream = connect({ host: '127.0.0.1', port });
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      bridge.listen(path);
      bridges.push(bridge);
    }
    server.listen(socket, () => {
      chmodSync(socket, 0o600);
      guest.warmUp();
    });
  } else {
    server.listen(Number(values.port), values.host ?? '127.0.0.1', () => {
      console.log(
        `osharm-guest-server ${VERSION} listening on ${values.host ?? '127.0.0.1'}:${values.port}${token ? ' (token required)' : ''}`,
      );
      guest.warmUp();
    });
  }
  const stop = () => {
    void guest.close().finally(() => process.exit(0));
    server.close();
    records?.server.close();
    for (const bridge of bridges) bridge.close();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
