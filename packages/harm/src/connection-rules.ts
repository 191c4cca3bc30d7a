import type { GuestConnection } from './guest-mark';
import type { RuleEvent } from './harm-rules';

// The rule for sockets to addresses outside the desktop's loopback (vm-local's guest-harm-net.ts):
// a TCP connection attempt (`ip-connect`) or a connected UDP socket (`ip-datagram`) is a
// `network_attempt` to that address, whichever program made it.

/** The destination as an event target: `tcp://192.0.2.10:8443`, `udp://[2001:db8::10]:53`. */
export function connectionTarget(connection: GuestConnection): string {
  const host = connection.address.includes(':') ? `[${connection.address}]` : connection.address;
  return `${connection.protocol}://${host}:${connection.port}`;
}

/** A socket the observer saw connecting (or connected) to an address outside loopback. */
export function connectionEvents(connection: GuestConnection): RuleEvent[] {
  const what = connection.state.startsWith('connect')
    ? `${connection.protocol.toUpperCase()} connect() call (exec watch)`
    : connection.protocol === 'tcp'
      ? `TCP connection attempt (${connection.state})`
      : 'UDP socket connected (a datagram need not have been sent)';
  const times = connection.count > 1 ? `, ${connection.count} sockets` : '';
  const sender =
    connection.pid === null
      ? 'its process could not be told (gone before its descriptors were read, or past the look budget)'
      : `by pid ${connection.pid}${connection.command ? ` (${connection.command.slice(0, 200)})` : ''}`;
  return [
    {
      kind: 'network_attempt',
      rule: connection.protocol === 'tcp' ? 'ip-connect' : 'ip-datagram',
      target: connectionTarget(connection),
      evidence: `${what} seen at ${connection.time}${times}; ${sender}`,
      categories: ['privacy', 'security'],
      harmful: true,
    },
  ];
}
