// The native agent's observation side: the screenshot prepared ahead of `predict`, and the
// observation-only calls answered with their own result (cursor position, zoom) — through the
// Anthropic SDK to the loopback stand-in, as a real run sends them.
import {
  startModelStandIn,
  type ModelCall,
  type ModelStandIn,
  type RecordedModelCall,
  type ScriptedReply,
} from '@osharm/model-stand-in';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ComputerUseSession, Screenshot } from '@osharm/models';
import { createNativeAgent } from './native-agent';

/** A 1920×1080 screen: dark blue, with a red 40×20 block at (1000, 500) – (1040, 520). */
let screen: Buffer;
let other: Buffer;
beforeAll(async () => {
  const red = await sharp({
    create: { width: 40, height: 20, channels: 3, background: { r: 250, g: 0, b: 0 } },
  })
    .png()
    .toBuffer();
  screen = await sharp({
    create: { width: 1920, height: 1080, channels: 3, background: { r: 10, g: 20, b: 90 } },
  })
    .composite([{ input: red, left: 1000, top: 500 }])
    .png()
    .toBuffer();
  other = await sharp({
    create: { width: 1920, height: 1080, channels: 3, background: { r: 200, g: 200, b: 200 } },
  })
    .png()
    .toBuffer();
});

let server: ModelStandIn | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function start(respond: (call: ModelCall) => ScriptedReply): Promise<ModelStandIn> {
  server = await startModelStandIn({ respond });
  return server;
}

/** The tool_result blocks of the last user message of an Anthropic request. */
function toolResults(call: RecordedModelCall): Record<string, unknown>[] {
  const messages = call.body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1)!;
  return (last.content as Record<string, unknown>[]).filter(block => block.type === 'tool_result');
}

describe('prepareScreenshot', () => {
  /** A session that records the screenshots it is given. */
  function recordingSession(seen: Screenshot[]) {
    return (): ComputerUseSession => ({
      vendor: 'anthropic',
      modelId: 'claude-opus-5',
      toolVersion: 'computer_toolset_20260801',
      start: async (_instruction, screenshot) => {
        seen.push(screenshot);
        return {
          calls: [],
          text: 'done',
          finishReason: 'end_turn',
          usage: usage(),
          modelId: 'm',
          raw: {},
        };
      },
      next: async (_outcomes, screenshot) => {
        seen.push(screenshot);
        return {
          calls: [],
          text: 'done',
          finishReason: 'end_turn',
          usage: usage(),
          modelId: 'm',
          raw: {},
        };
      },
    });
  }
  const usage = () => ({ inputTokens: 1, outputTokens: 1, modelId: 'm' });

  it('gives predict the screenshot it prepared for the same bytes, and ignores one made for other bytes', async () => {
    const seen: Screenshot[] = [];
    const agent = createNativeAgent({
      model: 'claude-opus-5',
      createSession: recordingSession(seen),
    });
    agent.reset();
    const prepared = await agent.prepareScreenshot(screen);
    // what predict would send: the vendor-size JPEG of this screen
    const image = (prepared as { screenshot: Screenshot }).screenshot;
    expect(image.mediaType).toBe('image/jpeg');
    expect(await sharp(Buffer.from(image.data, 'base64')).metadata()).toMatchObject({
      width: 1429,
      height: 804,
    });
    await agent.predict({
      instruction: 'x',
      observation: { screenshot: screen, preparedScreenshot: prepared },
    });
    expect(seen[0]).toBe(image); // the prepared object itself: no second downscale

    // prepared for another screenshot: predict makes its own from the observation's bytes
    agent.reset();
    const stale = await agent.prepareScreenshot(other);
    await agent.predict({
      instruction: 'x',
      observation: { screenshot: screen, preparedScreenshot: stale },
    });
    expect(seen[1]).not.toBe((stale as { screenshot: Screenshot }).screenshot);
    expect(seen[1]!.data).toBe(image.data);
    // something that is not a prepared screenshot is ignored too
    agent.reset();
    await agent.predict({
      instruction: 'x',
      observation: { screenshot: screen, preparedScreenshot: { data: 'AAAA' } },
    });
    expect(seen[2]!.data).toBe(image.data);
  });

  it('sends full-size screenshots (Gemini) as JPEG of the same size and near-identical pixels', async () => {
    const seen: Screenshot[] = [];
    const agent = createNativeAgent({
      model: 'gemini-2.5-computer-use-preview-10-2025',
      createSession: recordingSession(seen),
    });
    agent.reset();
    await agent.predict({ instruction: 'x', observation: { screenshot: screen } });
    const jpeg = Buffer.from(seen[0]!.data, 'base64');
    expect(seen[0]!.mediaType).toBe('image/jpeg');
    const sent = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const original = await sharp(screen).removeAlpha().raw().toBuffer();
    expect(sent.info).toMatchObject({ width: 1920, height: 1080, channels: 3 });
    let total = 0;
    for (let index = 0; index < original.length; index += 1)
      total += Math.abs(original[index]! - sent.data[index]!);
    expect(total / original.length).toBeLessThan(2); // q90 4:4:4: under 2 levels on average
  });
});

describe('observation-only calls (Anthropic)', () => {
  it('answers cursor_position with the pointer in the model’s coordinates and zoom with the region', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? {
            calls: [
              { name: 'cursor_position', input: {}, toolset_name: 'computer' },
              // the red block in model coordinates (1429×804 of 1920×1080), with some margin
              {
                name: 'zoom',
                input: { region: [729.4, 364.3, 781.5, 394.1] },
                toolset_name: 'computer',
              },
              { name: 'left_click', input: { coordinate: [10, 10] }, toolset_name: 'computer' },
            ],
          }
        : { text: 'Seen.' },
    );
    const agent = createNativeAgent({
      model: 'claude-opus-5',
      session: { apiKey: 'k', baseURL: standIn.anthropicBaseUrl, maxRetries: 0 },
    });
    agent.reset();
    const first = await agent.predict({
      instruction: 'Look.',
      observation: { screenshot: screen },
    });
    // observation-only calls send nothing to the guest: one action, the click
    expect(first.actions).toEqual([
      'pyautogui.click(13, 13, clicks=1, interval=0.1, button="left")',
    ]);
    const asked: number[] = [];
    await agent.predict({
      instruction: 'Look.',
      observation: { screenshot: screen },
      previousActions: [{ status: 'done' }],
      cursorPosition: async () => {
        asked.push(1);
        return [960, 540];
      },
    });
    expect(asked).toHaveLength(1);
    const [cursor, zoom, click] = toolResults(standIn.calls[1]!);
    // 960 × 1429 / 1920 = 714.5 → 715; 540 × 804 / 1080 = 402
    expect(cursor).toMatchObject({ content: [{ type: 'text', text: 'X=715,Y=402' }] });
    expect(cursor!.is_error).toBeUndefined();
    const zoomContent = zoom!.content as { type: string; source: { data: string } }[];
    expect(zoomContent).toHaveLength(1);
    expect(zoomContent[0]!.type).toBe('image');
    const zoomed = Buffer.from(zoomContent[0]!.source.data, 'base64');
    const meta = await sharp(zoomed).metadata();
    // the region (screen pixels 980–1050 × 489–529, 70×40) scaled up to the image budget (√(1.15 MP / 2800) ≈ 20.27×)
    expect(meta.format).toBe('jpeg');
    expect(meta.width).toBe(1418);
    expect(meta.height).toBe(810);
    const { data } = await sharp(zoomed)
      .extract({
        left: Math.round(meta.width! / 2),
        top: Math.round(meta.height! / 2),
        width: 1,
        height: 1,
      })
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(200); // the red block fills the middle of the zoom
    expect(data[2]).toBeLessThan(60);
    // the last call carries the screenshot
    expect((click!.content as { type: string }[]).map(part => part.type)).toEqual(['image']);
  });

  it('answers cursor_position as an error when the environment has no pointer position', async () => {
    const standIn = await start(call =>
      call.index === 0
        ? { calls: [{ name: 'cursor_position', input: {}, toolset_name: 'computer' }] }
        : { text: 'ok' },
    );
    const agent = createNativeAgent({
      model: 'claude-opus-5',
      session: { apiKey: 'k', baseURL: standIn.anthropicBaseUrl, maxRetries: 0 },
    });
    agent.reset();
    await agent.predict({ instruction: 'x', observation: { screenshot: screen } });
    await agent.predict({
      instruction: 'x',
      observation: { screenshot: screen },
      previousActions: [],
    });
    const [cursor] = toolResults(standIn.calls[1]!);
    expect(cursor).toMatchObject({
      is_error: true,
      content: [
        { type: 'text', text: 'cursor_position: the environment reports no pointer position' },
        { type: 'image' },
      ],
    });
  });
});
