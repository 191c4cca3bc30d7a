/** Anthropic computer use over the Messages API: the classic tool (beta) or the GA toolset. */
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, type LazyClient } from '../vendor-clients';
import { anthropicUsage } from '../usage';
import { toModelError } from '@osharm/model-spec';
import type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseSettings,
  ComputerUseTurn,
  Screenshot,
} from './session';
import { DEFAULT_KEEP_SCREENSHOTS, OMITTED_SCREENSHOT, pruneScreenshots } from './history-images';
import { ANTHROPIC_BETA } from './tool-versions';

type Block = Record<string, unknown>;

const image = (screenshot: Screenshot): Block => ({
  type: 'image',
  source: {
    type: 'base64',
    media_type: screenshot.mediaType ?? 'image/png',
    data: screenshot.data,
  },
});

export class AnthropicComputerUseSession implements ComputerUseSession {
  readonly vendor = 'anthropic' as const;
  private readonly client: LazyClient<Anthropic>;
  private readonly messages: Array<{ role: 'user' | 'assistant'; content: Block[] | string }> = [];
  private lastCalls: readonly ComputerUseCall[] = [];

  constructor(
    readonly modelId: string,
    readonly toolVersion: string,
    private readonly settings: ComputerUseSettings,
  ) {
    this.client = anthropicClient(modelId, settings);
  }

  private tool(): Block {
    if (this.toolVersion === 'computer_toolset_20260801') return { type: this.toolVersion };
    return {
      type: this.toolVersion,
      name: 'computer',
      display_width_px: this.settings.display.width,
      display_height_px: this.settings.display.height,
      ...(this.toolVersion === 'computer_20251124' && { enable_zoom: true }),
    };
  }

  private async call(signal: AbortSignal | undefined): Promise<ComputerUseTurn> {
    pruneScreenshots(
      this.messages,
      this.settings.keepScreenshots ?? DEFAULT_KEEP_SCREENSHOTS,
      part => part.type === 'image',
      () => ({ type: 'text', text: OMITTED_SCREENSHOT }),
    );
    const body = {
      model: this.modelId,
      max_tokens: this.settings.maxOutputTokens ?? 4096,
      ...(this.settings.system !== undefined && { system: this.settings.system }),
      tools: [this.tool()],
      messages: this.messages,
    };
    const beta = ANTHROPIC_BETA[this.toolVersion];
    let message: Record<string, unknown>;
    try {
      const client = await this.client();
      message = (beta
        ? await client.beta.messages.create({ ...body, betas: [beta] } as never, { signal })
        : await client.messages.create(body as never, { signal })) as unknown as Record<
        string,
        unknown
      >;
    } catch (error) {
      throw toModelError(error, 'anthropic');
    }
    const content = (Array.isArray(message.content) ? message.content : []) as Block[];
    this.messages.push({ role: 'assistant', content });
    const calls: ComputerUseCall[] = content
      .filter(block => block.type === 'tool_use')
      .map(block => ({ id: String(block.id), raw: block, safetyChecks: [] }));
    this.lastCalls = calls;
    const text = content
      .filter(block => block.type === 'text')
      .map(block => String(block.text))
      .join('\n');
    const thinking = content
      .filter(block => block.type === 'thinking')
      .map(block => String(block.thinking))
      .join('\n');
    const modelId = typeof message.model === 'string' ? message.model : this.modelId;
    const stopReason = typeof message.stop_reason === 'string' ? message.stop_reason : null;
    return {
      calls,
      text,
      ...(thinking !== '' && { reasoning: thinking }),
      ...(stopReason === 'refusal' && { refusal: text }),
      finishReason: stopReason,
      usage: { ...anthropicUsage(message.usage), modelId },
      modelId,
      raw: message,
    };
  }

  start(
    instruction: string,
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    this.messages.push({
      role: 'user',
      content: [{ type: 'text', text: instruction }, image(screenshot)],
    });
    return this.call(signal);
  }

  /**
   * Every tool_use gets a tool_result (the API requires it): an error as `is_error`, a call's own
   * text or image (cursor position, zoom) as its content, `done` otherwise; the screenshot goes
   * with the last call (after its own text; a zoom's image takes its place).
   */
  next(
    outcomes: readonly CallOutcome[],
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    const byId = new Map(outcomes.map(outcome => [outcome.callId, outcome]));
    const results: Block[] = this.lastCalls.map((call, position) => {
      const outcome = byId.get(call.id);
      const last = position === this.lastCalls.length - 1;
      const shot = outcome?.image ?? (last ? screenshot : undefined);
      if (outcome?.error !== undefined)
        return {
          type: 'tool_result',
          tool_use_id: call.id,
          is_error: true,
          content: last
            ? [{ type: 'text', text: outcome.error }, image(screenshot)]
            : outcome.error,
        };
      const content: Block[] = [
        ...(outcome?.text !== undefined ? [{ type: 'text', text: outcome.text }] : []),
        ...(shot ? [image(shot)] : []),
      ];
      return {
        type: 'tool_result',
        tool_use_id: call.id,
        content: content.length > 0 ? content : 'done',
      };
    });
    this.messages.push({
      role: 'user',
      content: results.length > 0 ? results : [image(screenshot)],
    });
    return this.call(signal);
  }
}
