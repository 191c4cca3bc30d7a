// Upstream's web addresses inside the local desktop: the site host resolves to the desktop's own
// loopback through its own /etc/hosts, HTTPS on its port 443 is signed by a certificate authority
// made for this desktop (whose private key is gone) and trusted in Chromium's NSS database, and
// requests reach the backend port as plain HTTP. The host's /etc/hosts, trust stores and port
// setting are unchanged.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { createLocalProvider } from './local-provider';
import { SANDBOX_SITE_BACKEND_PORT, SANDBOX_SITE_HOSTS, sandboxHostsFile } from './sandbox-sites';

const host = SANDBOX_SITE_HOSTS[0]!;

/** What the host's name resolution and trust stores hold (compared before and after). */
function hostState(): string {
  const hash = createHash('sha256');
  for (const path of ['/etc/hosts', '/etc/ssl/certs/ca-certificates.crt']) {
    hash.update(path).update(existsSync(path) ? readFileSync(path) : 'absent');
  }
  for (const directory of ['/etc/ssl/certs', '/usr/local/share/ca-certificates']) {
    hash.update(directory).update(existsSync(directory) ? readdirSync(directory).join('\n') : '');
  }
  const nss = join(homedir(), '.pki', 'nssdb');
  hash.update(existsSync(nss) ? readdirSync(nss).join('\n') : 'no nssdb');
  hash.update(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start'));
  return hash.digest('hex');
}

describe('sandboxHostsFile', () => {
  it('maps loopback, the desktop name and each site host to the desktop itself', () => {
    expect(sandboxHostsFile('desktop', ['a.example', 'b.example']).split('\n')).toEqual([
      '127.0.0.1\tlocalhost',
      '127.0.1.1\tdesktop',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      '127.0.0.1\ta.example',
      '127.0.0.1\tb.example',
      '',
    ]);
  });
});

describe.skipIf(skipReason !== undefined)("upstream's addresses inside the local desktop", () => {
  const provider = createLocalProvider();
  let endpoint: GuestEndpoint;
  let before: string;
  beforeAll(async () => {
    before = hostState();
    endpoint = await provider.start();
  }, 120_000);
  afterAll(() => provider.stop(), 60_000);

  it('resolves the site host to the desktop, serves it over trusted HTTPS, and keeps no CA key', async () => {
    const state = await sh(
      endpoint,
      [
        `getent hosts ${host}`,
        'for i in $(seq 100); do grep -q serving "$XDG_RUNTIME_DIR/osharm/site-tls.state" 2>/dev/null && break; sleep 0.1; done',
        'cat "$XDG_RUNTIME_DIR/osharm/site-tls.state"',
        'ls "$XDG_RUNTIME_DIR/osharm/tls"',
        'certutil -L -d sql:$HOME/.pki/nssdb',
      ].join('; '),
    );
    expect(state.output).toMatch(new RegExp(`^127\\.0\\.0\\.1\\s+${host.replaceAll('.', '\\.')}`));
    expect(state.output).toContain(
      `serving 127.0.0.1:443 -> 127.0.0.1:${SANDBOX_SITE_BACKEND_PORT}`,
    );
    // the authority's certificate and the server's are there; no private key is (the server's
    // was deleted once loaded, the authority's right after signing)
    expect(state.output).toMatch(/ca\.pem\nsite\.pem\n/);
    expect(state.output).not.toMatch(/\.key/);
    expect(state.output).toMatch(/osharm desktop CA\s+C,,/);

    // Chromium's NSS database and curl (given the authority) accept the chain for the host, and
    // the authority may sign for the site hosts only.
    const verify = await sh(
      endpoint,
      [
        'cd "$XDG_RUNTIME_DIR/osharm/tls"',
        `openssl verify -CAfile ca.pem -verify_hostname ${host} site.pem`,
        'openssl x509 -in ca.pem -noout -ext nameConstraints',
      ].join('; '),
    );
    expect(verify.output).toContain('site.pem: OK');
    expect(verify.output).toContain(`Permitted:\n      DNS:${host}`);

    // Nothing on the backend port: the connection ends without a page (as a refused site).
    const closed = await sh(
      endpoint,
      `curl -sS --max-time 5 --cacert "$XDG_RUNTIME_DIR/osharm/tls/ca.pem" https://${host}/index.html; echo " rc=$?"`,
    );
    expect(closed.output + closed.error).toMatch(/rc=(52|56|35)/);

    // A page on the backend port is served at https://{host}/ with the request's Host kept.
    const served = await sh(
      endpoint,
      [
        `mkdir -p /tmp/site && echo '<h1>served inside</h1>' > /tmp/site/index.html`,
        `(cd /tmp/site && setsid python3 -m http.server ${SANDBOX_SITE_BACKEND_PORT} --bind 127.0.0.1 >/tmp/site.log 2>&1 &)`,
        `for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:${SANDBOX_SITE_BACKEND_PORT}/ && break; sleep 0.1; done`,
        `curl -sS --max-time 5 --cacert "$XDG_RUNTIME_DIR/osharm/tls/ca.pem" https://${host}/index.html`,
        'sleep 0.2; cat /tmp/site.log',
      ].join('; '),
    );
    expect(served.output).toContain('<h1>served inside</h1>');
    expect(served.output).toMatch(/"GET \/index\.html HTTP\/1\.1" 200/);
  }, 120_000);

  it("leaves the host's /etc/hosts, trust stores and port setting as they were", () => {
    expect(hostState()).toBe(before);
  });
});
