// Parity with upstream's own PromptAgent on a REAL accessibility tree: the local desktop (the
// sandboxed Xvfb desktop of @osharm/vm-local) runs a terminal and LibreOffice Writer; the raw XML
// its guest server answers on /accessibility (what upstream's agent gets as
// `obs["accessibility_tree"]`) and its screenshot go through upstream's Python (mm_agents/agent.py:
// linearisation, tiktoken trimming, the message layout; parity/stubs for what cannot be installed)
// and through osharm's PromptAgent with upstream's texts. For every observation type the request
// must be the same JSON text (but for the `som` tagged screenshot's PNG bytes, as in
// upstream-parity.test.ts), at the default budget and at a budget that trims the tree.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelStandIn, type ModelStandIn } from '@osharm/model-stand-in';
import type { ObservationType } from '@osharm/task-schema';
import { openUpstream } from '@osharm/upstream';
import { createTestCheckout, type TestCheckout } from '@osharm/upstream/test';
import { guestRequest } from '@osharm/desktop-guest';
import { checkLocalDesktopRequirements, createLocalProvider } from '@osharm/vm-local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIM_MARKER } from './a11y-trim';
import { createOpenAIChatModel } from '@osharm/models';
import { createPromptAgent } from './prompt-agent';
import {
  findParityPython,
  TIKTOKEN_CL100K_SHA256,
  upstreamAgentRequests,
  writeTiktokenRanks,
} from './test/upstream-oracle';
import { loadUpstreamAgentPrompts } from './upstream-prompts';

const canRun = checkLocalDesktopRequirements().ok;
const SETTINGS = { model: 'gpt-4o', max_tokens: 1500, top_p: 0.9, temperature: 1.0 } as const;

type Part = { type: string; text?: string; image_url?: { url: string; detail?: string } };
type Body = { model: string; messages: { role: string; content: string | Part[] }[] };

/** The request as JSON text; with `dropImages` the image bytes are left out (the `som` case). */
function wire(body: Body, dropImages: boolean): string {
  if (!dropImages) return JSON.stringify(body);
  return JSON.stringify(body, (key, value: unknown) =>
    key === 'url' && typeof value === 'string' && value.startsWith('data:') ? 'data:…' : value,
  );
}

async function waitFor<T>(check: () => Promise<T | undefined>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 500));
  }
}

describe.runIf(canRun)("upstream's PromptAgent and osharm's on the real desktop's tree", () => {
  const provider = createLocalProvider();
  let endpoint: Awaited<ReturnType<typeof provider.start>>;
  let standIn: ModelStandIn;
  let checkout: TestCheckout;
  let work: string;
  let ranks: string;
  let python: string;
  let xml: string;
  let screenshot: Buffer;

  beforeAll(async () => {
    python = findParityPython();
    checkout = createTestCheckout();
    work = mkdtempSync(join(tmpdir(), 'osharm-agent-desktop-parity-'));
    ranks = join(work, 'cl100k_base.tiktoken');
    expect(writeTiktokenRanks(ranks)).toBe(TIKTOKEN_CL100K_SHA256);
    standIn = await startModelStandIn({ respond: () => ({ text: '```\nWAIT\n```' }) });
    endpoint = await provider.start();
    for (const command of [['gnome-terminal'], ['libreoffice', '--writer']]) {
      const launched = await guestRequest(endpoint, '/setup/launch', {
        method: 'POST',
        json: { command },
        timeoutMs: 60_000,
      });
      expect(launched.status, command.join(' ')).toBe(200);
    }
    // The tree once both applications are in it (Writer's document view takes a while).
    xml = await waitFor(
      async () => {
        const response = await guestRequest(endpoint, '/accessibility', { timeoutMs: 60_000 });
        if (response.status !== 200) return undefined;
        const tree = (JSON.parse(response.body.toString()) as { AT: string }).AT;
        return /name="[^"]*Terminal/.test(tree) && /<document-text /.test(tree) ? tree : undefined;
      },
      90_000,
      'a terminal and a Writer document in the accessibility tree',
    );
    const shot = await guestRequest(endpoint, '/screenshot', { timeoutMs: 60_000 });
    expect(shot.status).toBe(200);
    screenshot = shot.body;
  }, 240_000);

  afterAll(async () => {
    await provider.stop();
    await standIn?.close();
    checkout?.remove();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const cases: [ObservationType, number][] = [
    ['screenshot', 10_000],
    ['a11y_tree', 10_000],
    ['a11y_tree', 600],
    ['screenshot_a11y_tree', 10_000],
    ['som', 10_000],
    ['som', 600],
  ];
  it.each(cases)(
    '%s, a11y budget %i: the same request',
    async (observationType, budget) => {
      const instruction =
        'Type a heading in the Writer document, then list ~/Documents in the terminal.';
      const steps = [{ screenshot, accessibilityTree: xml, response: 'x' }];
      const [theirs] = upstreamAgentRequests({
        python,
        checkout: checkout.dir,
        ranks,
        agent: {
          ...SETTINGS,
          action_space: 'pyautogui',
          observation_type: observationType,
          max_trajectory_length: 3,
          a11y_tree_max_tokens: budget,
        },
        instruction,
        steps,
      }) as Body[];
      const agent = createPromptAgent({
        model: createOpenAIChatModel('gpt-4o', {
          baseURL: standIn.openaiBaseUrl,
          apiKey: 'parity',
        }),
        prompts: loadUpstreamAgentPrompts(openUpstream(checkout.dir)).prompts,
        observationType,
        actionSpace: 'pyautogui',
        a11yTreeMaxTokens: budget,
        maxTokens: SETTINGS.max_tokens,
        topP: SETTINGS.top_p,
        temperature: SETTINGS.temperature,
      });
      const first = standIn.calls.length;
      await agent.predict({
        instruction,
        observation: { screenshot, accessibilityTree: xml },
      });
      const mine = standIn.calls[first]!.body as Body;
      const som = observationType === 'som';
      expect(wire(mine, som)).toBe(wire(theirs!, som));
      // The comparison covered the real tree: its applications are in the text both sent, and the
      // small budget cut it.
      const content = mine.messages.at(-1)!.content;
      const text =
        typeof content === 'string' ? content : content.map(part => part.text ?? '').join('');
      if (observationType !== 'screenshot') {
        expect(text).toMatch(/Terminal/);
        if (budget < 10_000) expect(text).toContain(TRIM_MARKER);
        else expect(text).not.toContain(TRIM_MARKER);
      }
    },
    60_000,
  );
});
