import { z } from 'zod';

// Providers are identified by id (`VmProviderV1.providerId`), not by a closed list: a third party's
// provider writes its own id into fidelity.json, and says which desktop it runs.

/**
 * A provider's id as fidelity.json records it: lower-case letters and digits, with `-` or `.`
 * between them, at most 64 characters (`local`, `vmware`, `podman`, `docker`, `kubernetes`, or a
 * third party's). Every record written before ids (a bundled provider's name) reads unchanged.
 */
export const providerIdSchema = z
  .string()
  .max(64)
  .regex(
    /^[a-z0-9]+(?:[.-][a-z0-9]+)*$/,
    'a provider id: lower-case letters and digits, "-" or "." between them (e.g. local, podman)',
  );

/**
 * Which desktop a provider runs: `embedded`: osharm's sandboxed desktop on this host (vm-local);
 * `image`: the same desktop as a container image (podman, docker, kubernetes); `upstream-vm`:
 * upstream's VM image (vmware).
 */
export type FidelityDesktop = 'embedded' | 'image' | 'upstream-vm';

const BUNDLED_DESKTOPS: ReadonlyMap<string, FidelityDesktop> = new Map([
  ['local', 'embedded'],
  ['podman', 'image'],
  ['docker', 'image'],
  ['kubernetes', 'image'],
  ['vmware', 'upstream-vm'],
]);

/**
 * The desktop a run's provider ran: `desktop` when given, else the bundled provider's.
 * @throws {Error} naming the id when it is not of a provider id's shape, or names no bundled
 *   provider and `desktop` is not given (a fidelity verdict on a guess would be a number that can
 *   be wrong).
 */
export function providerDesktop(provider: string, desktop?: FidelityDesktop): FidelityDesktop {
  const shape = providerIdSchema.safeParse(provider);
  if (!shape.success) {
    throw new Error(`fidelity: provider "${provider}": ${shape.error.issues[0]?.message}`);
  }
  const known = desktop ?? BUNDLED_DESKTOPS.get(provider);
  if (known === undefined) {
    throw new Error(
      `fidelity: provider "${provider}" is not bundled: say which desktop it runs (desktop: 'embedded', 'image' or 'upstream-vm')`,
    );
  }
  return known;
}
