// Firefox on the container desktop (full image: a `full:` package): a link opens in it as on the
// embedded desktop (the injection's Thunderbird setup opens one), its window shows the page — an
// error page offline, which needs Gecko's content processes, whose sandbox cannot chroot in a
// container (the entrypoint turns it off) — and the dock shows its icon before the Trash. Skipped,
// naming why, without podman, without the image, or on an image without Firefox (the minimal one).
import { execFileSync } from 'node:child_process';
import { createGuestClient } from '@osharm/desktop-env';
import { describe, expect, it } from 'vitest';
import { createContainerProvider, DEFAULT_DESKTOP_IMAGE } from './index';

const image = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

function skipReason(): string | undefined {
  try {
    execFileSync('podman', ['image', 'inspect', image], { stdio: 'ignore' });
  } catch {
    return `podman or the desktop image ${image} is missing (scripts/build-desktop-image.sh)`;
  }
  return undefined;
}

const reason = skipReason();
if (reason) console.warn(`vm-container Firefox test skipped: ${reason}`);

describe.skipIf(reason !== undefined)('Firefox on the container desktop (podman)', () => {
  it('opens a link in Firefox: its page, its tab strip and its dock icon before the Trash', async ctx => {
    const provider = createContainerProvider({ engine: 'podman', image, memoryMb: 3072, cpus: 2 });
    try {
      const client = createGuestClient(await provider.start());
      try {
        const firefox = await client.execute(
          'test -f /usr/share/applications/firefox-esr.desktop',
          {
            shell: true,
          },
        );
        if (firefox.returncode !== 0) ctx.skip(`${image} has no Firefox (the minimal profile)`);
        await client.launch('xdg-open https://www.thunderbird.net/en-US/', { shell: true });
        const row = (tree: string, tag: string, name: RegExp) =>
          [...tree.matchAll(new RegExp(`<${tag}\\s[^>]*>`, 'g'))]
            .map(match => match[0])
            .find(element => name.test(element.match(/\sname="([^"]*)"/)?.[1] ?? ''));
        let tree = '';
        for (let attempt = 0; attempt < 60; attempt += 1) {
          tree = await client.accessibilityTree();
          if (row(tree, 'heading', /trouble finding that site|Server Not Found/)) break;
          await new Promise(resolve => setTimeout(resolve, 2000));
        }
        expect(row(tree, 'heading', /trouble finding that site|Server Not Found/)).toBeDefined();
        const at = (element: string | undefined) =>
          element
            ?.match(/cp:screencoord="\((-?\d+), (-?\d+)\)"/)
            ?.slice(1)
            .map(Number);
        expect(at(row(tree, 'push-button', /^Firefox$/))).toEqual([0, 784]);
        expect(at(row(tree, 'push-button', /^Trash$/))).toEqual([0, 852]);
        expect(at(row(tree, 'toggle-button', /^Firefox View$/))).toEqual([70, 64]);
      } finally {
        await client.close();
      }
    } finally {
      await provider.stop();
    }
  }, 300_000);
});
