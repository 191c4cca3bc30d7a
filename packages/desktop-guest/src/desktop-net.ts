import { runInSandboxNetns } from './desktop-netns';

// The desktop's network as every provider sets it up (the local sandbox, the container): its
// nameserver is the guest server's recording one, and without a network an egress sink.

/**
 * Where the guest server answers DNS in every desktop (guest-dns.ts): every lookup is recorded for
 * the harm observer, then refused (no network) or passed on (a network).
 */
export const RECORDING_DNS = { host: '127.0.0.1', port: 53 } as const;

/**
 * The text of the desktop's /etc/resolv.conf: the guest server's recording nameserver, which
 * refuses each query (no network; a refusal is final at once) or passes it on to the provider's
 * forwarder. Never the host's nameservers.
 */
export function sandboxResolvConf(): string {
  return `nameserver ${RECORDING_DNS.host}\n`;
}

// The sink of a sandbox without a network: a link in the sandbox's own network namespace (never the
// host's) carrying the default routes, IPv4 and IPv6, so that a connection to a literal IP address
// is sent (and dropped: the link has no other end) instead of failing at once in the kernel. The
// socket then waits in SYN_SENT, where the harm observer sees it with its owner (guest-harm-net.ts).
// The namespace's SYN retries are lowered so that such an attempt ends in about 3 s (ETIMEDOUT).
// Loopback is untouched: the nameserver on 127.0.0.1:53 and the site hosts keep working. A namespace
// made with IPv6 off (docker's default) gets it turned on first: else a connection to a literal IPv6
// address would fail at once in the kernel, unseen.

/** The sink link's name inside the sandbox (the guest server's `--egress-sink`). */
export const EGRESS_SINK_LINK = 'osharm0';

/** The sandbox's net.ipv4.tcp_syn_retries (IPv4 and IPv6): one retry, ETIMEDOUT after ~3 s. */
const EGRESS_SYN_RETRIES = 1;

// Runs in the namespace (desktop-netns.ts) and speaks rtnetlink itself (no `ip` needed): the first link kind the kernel offers — dummy, else a port-less bridge, else a veth
// pair — without ARP (nothing to resolve) nor IPv6 duplicate address detection (its link-local
// address is a source at once), up, with both default routes through it.
const ADD_SINK = String.raw`
import json, socket, struct
name = sys.argv[2].encode()
nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
nl.bind((0, 0))
seq = [0]
def attr(kind, data):
    return struct.pack("=HH", 4 + len(data), kind) + data + b"\0" * (-len(data) % 4)
def ifinfo(index=0, flags=0, change=0):
    return struct.pack("=BxHiII", 0, 0, index, flags, change)
def call(kind, flags, body):
    seq[0] += 1
    nl.send(struct.pack("=IHHII", 16 + len(body), kind, flags | 5, seq[0], 0) + body)
    while True:
        data = nl.recv(65536)
        offset = 0
        while offset + 16 <= len(data):
            length, mtype, _, mseq, _ = struct.unpack_from("=IHHII", data, offset)
            if mtype == 2 and mseq == seq[0]:
                code = struct.unpack_from("=i", data, offset + 16)[0]
                if code:
                    raise OSError(-code, os.strerror(-code))
                return
            offset += max(16, (length + 3) & ~3)
up = 0x1 | 0x80  # IFF_UP | IFF_NOARP
tried = []
for kind in (b"dummy", b"bridge", b"veth"):
    info = attr(1, kind)
    if kind == b"veth":
        info += attr(2, attr(1, ifinfo() + attr(3, name[:12] + b"-p\0")))
    try:
        call(16, 0x600, ifinfo(0, 0x80, 0x80) + attr(3, name + b"\0") + attr(18, info))
        break
    except OSError as error:
        tried.append("%s: %s" % (kind.decode(), error.strerror))
else:
    raise OSError(0, "no link kind could be added (" + "; ".join(tried) + ")")
index = socket.if_nametoindex(name.decode())
try:  # no duplicate address detection: the link-local source address is usable at once
    with open("/proc/sys/net/ipv6/conf/%s/accept_dad" % name.decode(), "w") as handle:
        handle.write("0")
except OSError:
    pass
call(16, 0, ifinfo(index, up, up))
route = lambda family, scope: struct.pack("=BBBBBBBBI", family, 0, 0, 0, 254, 4, scope, 1, 0) + attr(4, struct.pack("=i", index))
call(24, 0x600, route(socket.AF_INET, 253))
def enable_ipv6():  # a namespace made with IPv6 off (docker's, without --ipv6): on, inside it only
    for conf in ("all", "default", name.decode()):
        with open("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % conf, "w") as handle:
            handle.write("0")
ipv6 = None
for attempt in (0, 1):
    try:
        call(24, 0x600, route(socket.AF_INET6, 0))
        ipv6 = None
        break
    except OSError as error:
        ipv6 = error.strerror
        if attempt == 0:
            try:
                enable_ipv6()
            except OSError as error:
                ipv6 += "; turning IPv6 on: " + error.strerror
                break
with open("/proc/sys/net/ipv4/tcp_syn_retries", "w") as handle:
    handle.write(sys.argv[3])
print(json.dumps({"link": kind.decode(), "ipv6": ipv6}))
`;

/** What {@link addEgressSink} set up. */
export interface EgressSink {
  /** The link kind the kernel offered: `dummy`, `bridge` or `veth`. */
  readonly kind: string;
  /** Why IPv6 has no route through the sink (IPv6 off in the namespace); undefined when it has one. */
  readonly ipv6Problem: string | undefined;
}

/**
 * Adds {@link EGRESS_SINK_LINK} with the default routes to the network namespace of the sandbox
 * whose first process is `childPid`, and sets its SYN retries. As root the namespace is joined
 * directly, otherwise through its owning user namespace (made by bwrap for the caller).
 * @throws {Error} naming the helper's message when the link or the IPv4 route cannot be added.
 */
export async function addEgressSink(childPid: number): Promise<EgressSink> {
  let output: string;
  try {
    output = await runInSandboxNetns(childPid, ADD_SINK, [
      EGRESS_SINK_LINK,
      String(EGRESS_SYN_RETRIES),
    ]);
  } catch (error) {
    throw new Error(
      `could not add the egress sink to the sandbox's network namespace (connections to literal IP addresses are not observed): ${(error as Error).message}`,
      { cause: error },
    );
  }
  const result = JSON.parse(output) as { link: string; ipv6: string | null };
  return { kind: result.link, ipv6Problem: result.ipv6 ?? undefined };
}
