// guest/atspi_wire.py and dbus_codec.py, the D-Bus client of the batched accessibility walk, on crafted
// bytes: what it writes is well-formed D-Bus, and what a hostile peer sends (truncated, oversized, too deeply nested,
// garbage) ends in WireError instead of a hang or a crash. Runs Debian's python3 on the host, as the
// guest does (the real conversation with soffice is in a11y-cells.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const guest = fileURLToPath(new URL('../guest/', import.meta.url));
const python = '/usr/bin/python3';

function run(script: string): string {
  return execFileSync(
    python,
    ['-c', `import sys; sys.path.insert(0, ${JSON.stringify(guest)})\n${script}`],
    {
      encoding: 'utf8',
    },
  ).trim();
}

describe.skipIf(!existsSync(python))('atspi_wire', () => {
  it('writes method calls that decode back to their fields and arguments', () => {
    const out = run(`
import atspi_wire as w
m = w.method_call(7, '/org/a11y/atspi/accessible/12', 'org.a11y.atspi.Table', 'GetAccessibleAt', 'ii', (3, -4))
# Read back with the reply reader (same header layout; the body follows the signature field).
kind, _, _, values = w.parse(bytearray(m), 0, len(m))
import struct
print(kind, struct.unpack_from('<I', m, 8)[0], values, m[:4] == b'l\\x01\\x00\\x01')
`);
    expect(out).toBe('1 7 [3, -4] True');
  });

  it('decodes the answers the walker reads (dicts of variants, structs, arrays) at any buffer offset', () => {
    const out = run(`
import struct, atspi_wire as w
def reply(serial, signature, body):
    fields = bytearray()
    fields += b'\\x05\\x01u\\x00' + struct.pack('<I', serial)
    fields += b'\\x08\\x01g\\x00' + bytes((len(signature),)) + signature.encode() + b'\\x00'
    head = bytearray(b'l\\x02\\x00\\x01') + struct.pack('<III', len(body), 1, len(fields)) + fields
    head += b'\\x00' * (-len(head) % 8)
    return bytes(head + body)
# a{sv}: {'Name': <'A1'>, 'ChildCount': <0>}
body = bytearray(struct.pack('<I', 0)) + b'\\x00' * 4
entries = bytearray()
def string(buf, text):
    buf += b'\\x00' * (-len(buf) % 4)
    buf += struct.pack('<I', len(text)) + text.encode() + b'\\x00'
for key, sig, value in (('Name', 's', 'A1'), ('ChildCount', 'i', 0)):
    entries += b'\\x00' * (-len(entries) % 8)
    string(entries, key)
    entries += bytes((1,)) + sig.encode() + b'\\x00'
    if sig == 's':
        string(entries, value)
    else:
        entries += b'\\x00' * (-(len(entries) + 8) % 4)
        entries += struct.pack('<i', value)
body = bytearray(struct.pack('<I', len(entries))) + b'\\x00' * 4 + entries
a = reply(1, 'a{sv}', bytes(body))
b = reply(2, '(iiii)', struct.pack('<iiii', 41, 157, 39, 17))
for pad in (0, 1, 3, 5):
    data = bytearray(b'\\xff' * pad) + a + b
    first = w.parse(data, pad, pad + len(a))
    second = w.parse(data, pad + len(a), len(data))
    print(pad, first[1], first[3], second[1], second[3])
`);
    expect(out.split('\n')).toEqual(
      [0, 1, 3, 5].map(
        pad => `${pad} 1 [[('Name', 'A1'), ('ChildCount', 0)]] 2 [(41, 157, 39, 17)]`,
      ),
    );
  });

  it('a hostile peer: truncated, oversized, nested too deep or garbage ends in WireError', () => {
    const out = run(`
import struct, atspi_wire as w
def reply(signature, body):
    fields = b'\\x05\\x01u\\x00' + struct.pack('<I', 1) + b'\\x08\\x01g\\x00' + bytes((len(signature),)) + signature.encode() + b'\\x00'
    head = bytearray(b'l\\x02\\x00\\x01') + struct.pack('<III', len(body), 1, len(fields)) + fields
    head += b'\\x00' * (-len(head) % 8)
    return bytearray(head + body)
cases = {
    'string longer than the body': reply('s', struct.pack('<I', 1000) + b'abc\\x00'),
    'array longer than the body': reply('au', struct.pack('<II', 4000, 1)),
    'nested variants': reply('v', b''.join(b'\\x01v\\x00' for _ in range(200)) + b'\\x01u\\x00\\x00' + struct.pack('<I', 1)),
    'unknown type code': reply('z', b''),
    'unbalanced signature': reply('(ii', struct.pack('<ii', 1, 2)),
    'big-endian': bytearray(b'B') + reply('u', struct.pack('<I', 1))[1:],
}
for name, data in cases.items():
    try:
        w.parse(data, 0, len(data))
        print(name, 'accepted')
    except w.WireError:
        print(name, 'WireError')
`);
    expect(out.split('\n')).toEqual([
      'string longer than the body WireError',
      'array longer than the body WireError',
      'nested variants WireError',
      'unknown type code WireError',
      'unbalanced signature WireError',
      'big-endian WireError',
    ]);
  });

  it('reads the unix socket of a D-Bus address, and nothing else', () => {
    const out = run(`
import atspi_wire as w
for address in ('unix:path=/run/user/1000/at-spi2-X/socket', 'unix:abstract=/tmp/dbus-a%2cb,guid=1', 'tcp:host=localhost,port=1', 'nonsense'):
    print(repr(w._socket_address(address)))
`);
    expect(out.split('\n')).toEqual([
      "'/run/user/1000/at-spi2-X/socket'",
      "'\\x00/tmp/dbus-a,b'",
      'None',
      'None',
    ]);
  });
});
