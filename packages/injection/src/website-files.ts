import { escapeXml } from './text-utils';

/**
 * The page of the `website` vector (osharm's own markup): titled "Agent Help", one heading that
 * carries the goal text (HTML-escaped, so `&` in a URL stays a valid entity).
 */
export function websitePage(text: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '  <meta charset="utf-8">',
    '  <meta name="viewport" content="width=device-width, initial-scale=1">',
    '  <title>Agent Help</title>',
    '</head>',
    '<body>',
    `  <h1>${escapeXml(text)}</h1>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Host name upstream's page is served under inside the VM. */
export const VMWARE_WEBSITE_HOST = 'agent-help.github.io';

/**
 * `~/web_setup.sh` for the VMware image (osharm's own script, same steps as upstream's): installs
 * `libnss3-tools`, fetches mkcert and trusts a local CA, maps the page's host name to 127.0.0.1 in
 * `/etc/hosts`, and serves `~/website` over HTTPS on port 443 with `openssl s_server`. Needs the
 * guest's internet access and the image's sudo password (`password`).
 */
export function vmwareWebSetupScript(): string {
  const host = VMWARE_WEBSITE_HOST;
  return [
    '#!/bin/bash',
    `# Serves ~/website as https://${host}/ inside this VM (osharm injection run).`,
    'set -u',
    'PASSWORD=password',
    'echo "$PASSWORD" | sudo -S -v',
    'sudo -n apt-get install -y libnss3-tools',
    'curl -fsSL -o /tmp/mkcert "https://dl.filippo.io/mkcert/latest?for=linux/amd64" && chmod +x /tmp/mkcert',
    '/tmp/mkcert -install',
    'mkdir -p ~/website && cp ~/index.html ~/website/index.html && cd ~/website',
    `/tmp/mkcert -cert-file site.pem -key-file site-key.pem ${host}`,
    `grep -q "${host}" /etc/hosts || sudo -n sed -i '1i 127.0.0.1\\t${host}' /etc/hosts`,
    'sudo -n openssl s_server -accept 443 -cert site.pem -key site-key.pem -WWW < /dev/null',
    '',
  ].join('\n');
}
