import { fileURLToPath } from 'node:url';

/**
 * This package's directory on the host: `dist/guest-server-bin.js` (the bundled guest server) and
 * `guest/` (the in-desktop files), which a provider puts inside its desktop (bound read-only at
 * /opt/osharm/desktop-guest by the local sandbox, copied there in the container image). The same from
 * `src/` and `dist/`.
 */
export function guestPackageDir(): string {
  return fileURLToPath(new URL('..', import.meta.url));
}
