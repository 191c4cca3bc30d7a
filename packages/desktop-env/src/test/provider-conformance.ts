// The contract every VM provider meets, as checks a provider's own test file runs in order on one
// provider: identity, a refused start, start (the guest answers), revert (clean), stop (nothing
// left, idempotent). Plain functions throwing node:assert errors, so this entry needs no test
// runner: `for (const check of providerConformanceChecks(setup)) it(check.name, check.run, check.timeoutMs)`.
import assert from 'node:assert/strict';
import { VmProviderError } from '../desktop-env-errors';
import { createGuestClient, type UndiciGuestClient } from '../guest-client-undici';
import type { GuestEndpoint, VmProviderV1 } from '../vm-provider';

/** What {@link providerConformanceChecks} needs to know about the provider under test. */
export interface ProviderConformanceSetup {
  /** The id the provider reports and names in its errors. */
  readonly providerId: string;
  /**
   * Makes the provider under test (called once, by the first check): the checks start, revert and
   * stop it once, in this order.
   */
  readonly create: () => VmProviderV1;
  /** A provider of the same kind whose start cannot succeed (a missing program or image). */
  readonly broken: () => VmProviderV1;
  /** What the broken start's error message says. */
  readonly brokenMessage: RegExp;
  /**
   * What of the provider's environments still exists on the host (processes, containers, pods,
   * running VMs), by name: must be empty before start and after stop.
   */
  readonly leftovers: () => Promise<readonly string[]> | readonly string[];
  /**
   * The guest is osharm's guest server (a PNG of the screen's size, an accessibility tree, a file
   * written through /execute marks the environment). false for a stand-in guest, which then needs
   * `mark` and `marked`. @default true
   */
  readonly realGuest?: boolean;
  /** Leaves a mark in the running environment. @default a file on the desktop, through the guest */
  readonly mark?: (endpoint: GuestEndpoint) => Promise<void>;
  /** Whether the mark is there. */
  readonly marked?: (endpoint: GuestEndpoint) => Promise<boolean>;
  /** Provider-specific checks after revert (the old sandbox's processes gone, …). */
  readonly afterRevert?: (before: GuestEndpoint, after: GuestEndpoint) => Promise<void>;
  /** Bound of one environment start in ms (a check that starts one gets twice this). @default 300 000 */
  readonly startTimeoutMs?: number;
}

/** One check: a name for the test, its time bound, and the check itself (throws on a breach). */
export interface ProviderConformanceCheck {
  readonly name: string;
  readonly timeoutMs: number;
  run(): Promise<void>;
}

const MARK = 'Desktop/osharm-conformance-mark';

/** Runs `call` with a guest client of `endpoint`, closed afterwards. */
async function withGuest<Result>(
  endpoint: GuestEndpoint,
  call: (client: UndiciGuestClient) => Promise<Result>,
): Promise<Result> {
  const client = createGuestClient(endpoint);
  try {
    return await call(client);
  } finally {
    await client.close();
  }
}

async function guestMark(endpoint: GuestEndpoint): Promise<void> {
  const result = await withGuest(endpoint, client =>
    client.execute(['/bin/sh', '-c', `touch "$HOME/${MARK}"`]),
  );
  assert.equal(result.returncode, 0, `the mark was not written: ${result.error}`);
}

async function guestMarked(endpoint: GuestEndpoint): Promise<boolean> {
  const result = await withGuest(endpoint, client =>
    client.execute(['/bin/sh', '-c', `test -e "$HOME/${MARK}" && echo marked || echo clean`]),
  );
  return result.output.trim() === 'marked';
}

async function rejection(promise: Promise<unknown>, providerId: string): Promise<VmProviderError> {
  const error = await promise.then(
    () => assert.fail('the call succeeded'),
    (caught: unknown) => caught,
  );
  assert.ok(VmProviderError.isInstance(error), `not a VmProviderError: ${String(error)}`);
  assert.equal(error.providerId, providerId, 'the error names another provider');
  return error;
}

/** Whether anything answers at the endpoint within 5 s (any HTTP status counts as an answer). */
async function answers(endpoint: GuestEndpoint): Promise<boolean> {
  return withGuest(endpoint, client =>
    client.platform({ timeoutMs: 5_000 }).then(
      () => true,
      (error: unknown) => (error as { status?: number }).status === 401,
    ),
  );
}

/** PNG width × height from its IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'the screenshot is not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The contract checks, to run in the order given on the provider `setup.create` makes. */
export function providerConformanceChecks(
  setup: ProviderConformanceSetup,
): ProviderConformanceCheck[] {
  const { providerId } = setup;
  let made: VmProviderV1 | undefined;
  const vm = () => (made ??= setup.create());
  const startMs = setup.startTimeoutMs ?? 300_000;
  const realGuest = setup.realGuest ?? true;
  const mark = setup.mark ?? guestMark;
  const marked = setup.marked ?? guestMarked;
  const noLeftovers = async (when: string) =>
    assert.deepEqual([...(await setup.leftovers())], [], `left running ${when}`);
  let started: GuestEndpoint | undefined;
  return [
    {
      name: `is a vm-provider-v1 with id ${providerId}; an already aborted start starts nothing`,
      timeoutMs: 60_000,
      run: async () => {
        assert.equal(vm().specificationVersion, 'vm-provider-v1');
        assert.equal(vm().providerId, providerId);
        assert.equal(vm().endpoint(), undefined, 'an endpoint before start');
        await rejection(vm().start({ abortSignal: AbortSignal.abort() }), providerId);
        assert.equal(vm().endpoint(), undefined, 'an endpoint after an aborted start');
        await noLeftovers('after an aborted start');
      },
    },
    {
      name: 'a start that cannot succeed fails with a VmProviderError naming the provider and the problem',
      timeoutMs: startMs,
      run: async () => {
        const broken = setup.broken();
        const error = await rejection(broken.start(), providerId);
        assert.match(error.message, setup.brokenMessage);
        assert.equal(broken.endpoint(), undefined, 'an endpoint after a failed start');
        // Cleaning up after it may fail for the same reason (VMware's stop needs vmrun), but only
        // with a VmProviderError naming the provider.
        await broken.stop().catch((caught: unknown) => {
          assert.ok(VmProviderError.isInstance(caught), `stop threw ${String(caught)}`);
          assert.equal(caught.providerId, providerId, 'the stop error names another provider');
        });
      },
    },
    {
      name: 'start: the guest answers, a second start attaches, the run facts are well-formed',
      timeoutMs: startMs,
      run: async () => {
        started = await vm().start({ timeoutMs: startMs });
        assert.deepEqual(vm().endpoint(), started);
        const screen = started.screen ?? { width: 1920, height: 1080 };
        await withGuest(started, async client => {
          const png = await client.screenshot();
          if (!realGuest) return;
          assert.deepEqual(pngSize(png), { width: screen.width, height: screen.height });
          assert.match(await client.accessibilityTree(), /^\s*</, 'no accessibility tree');
        });
        assert.deepEqual(await vm().start(), started, 'a second start did not attach');
        const sudo = vm().sudoMode?.();
        if (sudo !== undefined) assert.ok(['in-namespace', 'unavailable'].includes(sudo));
        const shell = vm().desktopShell?.();
        if (shell !== undefined) {
          assert.ok(['gnome-shell', 'openbox'].includes(shell.shell));
          assert.equal(shell.fallback === null, shell.shell === shell.requested);
        }
      },
    },
    {
      name: 'revert gives a clean environment; a fresh guest token leaves the old one refused',
      timeoutMs: 2 * startMs,
      run: async () => {
        const before = started ?? (await vm().start({ timeoutMs: startMs }));
        await mark(before);
        assert.ok(await marked(before), 'the mark is not seen');
        started = await vm().revert({ timeoutMs: startMs });
        assert.deepEqual(vm().endpoint(), started);
        assert.equal(await marked(started), false, 'the mark survived revert');
        if (before.token !== undefined && started.token !== before.token) {
          const refused = await withGuest({ ...started, token: before.token }, stale =>
            stale.platform({ timeoutMs: 5_000 }).then(
              () => false,
              () => true,
            ),
          );
          assert.ok(refused, 'the old token still opens the new environment');
        }
        await setup.afterRevert?.(before, started);
      },
    },
    {
      name: 'stop leaves nothing running, forgets the endpoint, and is idempotent',
      timeoutMs: startMs,
      run: async () => {
        const last = started ?? (await vm().start({ timeoutMs: startMs }));
        await vm().stop();
        assert.equal(vm().endpoint(), undefined, 'an endpoint after stop');
        await noLeftovers('after stop');
        if (realGuest) assert.equal(await answers(last), false, 'the guest still answers');
        await vm().stop();
      },
    },
  ];
}
