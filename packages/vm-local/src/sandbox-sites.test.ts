// Upstream's web addresses inside the local desktop: the site host resolves to the desktop's own
// loopback through its own /etc/hosts, HTTPS on its port 443 is signed by a certificate authority
// made for this desktop (whose private key is gone) and trusted in Chromium's NSS database, and
// requests reach the backend port as plain HTTP. The host's /etc/hosts, trust stores and port
// setting are unchanged.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestEndpoint } from '@osharm/desktop-env';
import { sh, skipReason } from './__fixtures__/local-desktop-fixture';
import { guestRequest } from '@osharm/desktop-guest';
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
    // The TLS state is the server's (under /run/user/1000/osharm, masked in the agent's namespace):
    // read through the guest server's /file, as the harness reads it.
    const serverFile = async (name: string) => {
      const response = await guestRequest(endpoint, '/file', {
        method: 'POST',
        body: {
          data: new URLSearchParams({ file_path: `/run/user/1000/osharm/${name}` }).toString(),
          contentType: 'application/x-www-form-urlencoded',
        },
        timeoutMs: 10_000,
      });
      return { status: response.status, text: response.body.toString('utf8') };
    };
    let tlsState = '';
    for (let attempt = 0; attempt < 100 && !tlsState.includes('serving'); attempt++) {
      tlsState = (await serverFile('site-tls.state')).text;
      if (!tlsState.includes('serving')) await new Promise(done => setTimeout(done, 100));
    }
    expect(tlsState).toContain(`serving 127.0.0.1:443 -> 127.0.0.1:${SANDBOX_SITE_BACKEND_PORT}`);
    const state = await sh(
      endpoint,
      [`getent hosts ${host}`, 'certutil -L -d sql:$HOME/.pki/nssdb'].join('; '),
    );
    expect(state.output).toMatch(new RegExp(`^127\\.0\\.0\\.1\\s+${host.replaceAll('.', '\\.')}`));
    // the authority's certificate and the server's are there; no private key is (the server's
    // was deleted once loaded, the authority's right after signing)
    const ca = await serverFile('tls/ca.pem');
    const site = await serverFile('tls/site.pem');
    expect([ca.status, site.status]).toEqual([200, 200]);
    expect((await serverFile('tls/ca.key')).status).toBe(404);
    expect((await serverFile('tls/site.key')).status).toBe(404);
    expect(state.output).toMatch(/osharm desktop CA\s+C,,/);

    // Chromium's NSS database and curl (given the authority) accept the chain for the host, and
    // the authority may sign for the site hosts only (checked with the host's openssl).
    const pems = mkdtempSync(join(tmpdir(), 'osharm-site-tls-'));
    try {
      writeFileSync(join(pems, 'ca.pem'), ca.text);
      writeFileSync(join(pems, 'site.pem'), site.text);
      const openssl = (...args: string[]) =>
        execFileSync('openssl', args, { cwd: pems, encoding: 'utf8' });
      expect(
        openssl('verify', '-CAfile', 'ca.pem', '-verify_hostname', host, 'site.pem'),
      ).toContain('site.pem: OK');
      expect(openssl('x509', '-in', 'ca.pem', '-noout', '-ext', 'nameConstraints')).toContain(
        `Permitted:\n      DNS:${host}`,
      );
    } finally {
      rmSync(pems, { recursive: true, force: true });
    }

    // curl inside is given the authority's certificate (a copy: the original is the server's).
    await sh(endpoint, `cat > /tmp/osharm-ca.pem <<'PEM'\n${ca.text}PEM`);

    // Nothing on the backend port: the connection ends without a page (as a refused site).
    const closed = await sh(
      endpoint,
      `curl -sS --max-time 5 --cacert /tmp/osharm-ca.pem https://${host}/index.html; echo " rc=$?"`,
    );
    expect(closed.output + closed.error).toMatch(/rc=(52|56|35)/);

    // A page on the backend port is served at https://{host}/ with the request's Host kept.
    const served = await sh(
      endpoint,
      [
        `mkdir -p /tmp/site && echo '<h1>served inside</h1>' > /tmp/site/index.html`,
        `(cd /tmp/site && setsid python3 -m http.server ${SANDBOX_SITE_BACKEND_PORT} --bind 127.0.0.1 >/tmp/site.log 2>&1 &)`,
        `for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:${SANDBOX_SITE_BACKEND_PORT}/ && break; sleep 0.1; done`,
        `curl -sS --max-time 5 --cacert /tmp/osharm-ca.pem https://${host}/index.html`,
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
