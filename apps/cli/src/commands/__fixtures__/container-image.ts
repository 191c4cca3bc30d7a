// The container e2e tests' precondition: podman with the desktop image, and the local desktop's
// requirements (the harness side runs the same checks).
import { execFileSync } from 'node:child_process';
import { DEFAULT_DESKTOP_IMAGE } from '@osharm/vm-container';
import { checkLocalDesktopRequirements } from '@osharm/vm-local';

/** The image the container e2e tests run (`OSHARM_DESKTOP_IMAGE`, else the default). */
export const containerImage = process.env.OSHARM_DESKTOP_IMAGE ?? DEFAULT_DESKTOP_IMAGE;

/** Why the podman e2e tests cannot run here, or undefined. */
export function containerSkipReason(): string | undefined {
  try {
    execFileSync('podman', ['image', 'inspect', containerImage], { stdio: 'ignore' });
  } catch {
    return `podman or the desktop image ${containerImage} is missing: build it with scripts/build-desktop-image.sh`;
  }
  return checkLocalDesktopRequirements().ok ? undefined : 'the local desktop is not available';
}
