import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Chromium's system settings as upstream's Chrome has them: Google as the default search engine
 * (Debian's Chromium lists DuckDuckGo first, whose offline new-tab page is
 * chrome://new-tab-page-third-party with the address in the bar; Google's is Chromium's own page,
 * offline too: an empty address bar, the search box, shortcuts, Customize Chromium — as upstream's
 * first observations show). Set as a *recommended* policy (desktop-guest guest/config/chromium-policy.json):
 * the user may change it (whether Chromium's menu then says it is managed was not checked). The host's /etc/chromium
 * is copied into the sandbox's state dir with the policy added, and bound over /etc/chromium inside
 * (sandbox-args.ts): the host's own /etc is never written.
 * @returns the dir to bind over /etc/chromium, or undefined when the host has no Chromium settings.
 */
export async function writeChromiumEtc(
  stateDir: string,
  packageDir: string,
): Promise<string | undefined> {
  if (!existsSync('/etc/chromium')) return undefined;
  const etc = join(stateDir, 'chromium-etc');
  await cp('/etc/chromium', etc, { recursive: true, dereference: true });
  await mkdir(join(etc, 'policies', 'recommended'), { recursive: true });
  await copyFile(
    join(packageDir, 'guest', 'config', 'chromium-policy.json'),
    join(etc, 'policies', 'recommended', 'osharm.json'),
  );
  return etc;
}
