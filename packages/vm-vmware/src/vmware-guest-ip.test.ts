import { describe, expect, it } from 'vitest';
import { parseGuestIpAddress, urlHost } from './vmware-guest-ip';
import { describeVmrunResult, formatSeconds, parseVmrunList } from './vmware-vmrun';

describe('parseGuestIpAddress', () => {
  it.each([
    ['192.168.56.101\n', 0, '192.168.56.101'],
    ['  10.0.0.7  \r\n', 0, '10.0.0.7'],
    ['fd00::20c:29ff:fe12:3456\n', 0, 'fd00::20c:29ff:fe12:3456'],
  ])('accepts %j', (stdout, exitCode, expected) => {
    expect(parseGuestIpAddress({ stdout, exitCode })).toBe(expected);
  });

  it.each([
    ['Error: Unable to get the IP address\n', 0],
    ['Error: Unable to get the IP address\n', 255],
    ['192.168.56.101\n', 255],
    ['192.168.56.101\n', null],
    ['unknown\n', 0],
    ['\n', 0],
    ['', 0],
    ['0.0.0.0\n', 0],
    ['::\n', 0],
    ['fe80::1%ens33\n', 0],
    ['192.168.56.101\n10.0.0.7\n', 0],
    ['256.1.1.1\n', 0],
    ['Error: The VMware Tools are not running in the virtual machine: /vms/a.vmx\n', 255],
  ])('rejects %j (exit %s)', (stdout, exitCode) => {
    expect(parseGuestIpAddress({ stdout, exitCode })).toBeUndefined();
  });

  it('brackets IPv6 hosts in URLs', () => {
    expect(urlHost('10.0.0.7')).toBe('10.0.0.7');
    expect(urlHost('fd00::1')).toBe('[fd00::1]');
  });
});

describe('vmrun output', () => {
  it('parseVmrunList skips the count line and blank lines', () => {
    expect(
      parseVmrunList(
        'Total running VMs: 2\r\n/vms/Ubuntu0/Ubuntu0.vmx\r\n/vms/Ubuntu1/Ubuntu1.vmx\r\n\r\n',
      ),
    ).toEqual(['/vms/Ubuntu0/Ubuntu0.vmx', '/vms/Ubuntu1/Ubuntu1.vmx']);
    expect(parseVmrunList('Total running VMs: 0\n')).toEqual([]);
  });

  it('describeVmrunResult: output, exit code, timeout', () => {
    const base = { argv: ['vmrun', '-T', 'ws', 'list'], durationMs: 1500, timedOut: false };
    expect(
      describeVmrunResult({ ...base, exitCode: 255, stdout: 'Error: a\nb\n', stderr: '' }),
    ).toBe('Error: a | b');
    expect(describeVmrunResult({ ...base, exitCode: 3, stdout: '', stderr: '' })).toBe(
      '(no output, exit code 3)',
    );
    expect(
      describeVmrunResult({ ...base, exitCode: null, stdout: '', stderr: '', timedOut: true }),
    ).toBe('vmrun list was killed after 1.5 s');
  });

  it('formatSeconds', () => {
    expect(formatSeconds(300_000)).toBe('300 s');
    expect(formatSeconds(250)).toBe('0.25 s');
  });
});
