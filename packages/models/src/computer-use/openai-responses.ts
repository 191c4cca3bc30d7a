/**
 * OpenAI computer use over the Responses API: the GA `computer` tool (a `computer_call` carries
 * `actions[]`) or `computer_use_preview` (one `action`, display size and environment declared).
 * Turns are chained by `previous_response_id`, or (`openaiChain: 'full-input'`) by sending the
 * whole input again with every output item kept — reasoning items included, as the API requires.
 */
import type OpenAI from 'openai';
import { openaiClient, type LazyClient } from '../vendor-clients';
import { openAIResponsesUsage } from '../usage';
import { toModelError } from '@osharm/model-spec';
import type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseSettings,
  ComputerUseTurn,
  SafetyCheck,
  Screenshot,
} from './session';

type Item = Record<string, unknown>;

const dataUrl = (screenshot: Screenshot) =>
  `data:${screenshot.mediaType ?? 'image/png'};base64,${screenshot.data}`;

export class OpenAIComputerUseSession implements ComputerUseSession {
  readonly vendor = 'openai' as const;
  private readonly client: LazyClient<OpenAI>;
  private readonly input: Item[] = [];
  private previousResponseId: string | undefined;
  private lastCalls: readonly ComputerUseCall[] = [];
  private readonly fullInput: boolean;

  constructor(
    readonly modelId: string,
    readonly toolVersion: string,
    private readonly settings: ComputerUseSettings,
  ) {
    this.client = openaiClient(modelId, settings);
    this.fullInput = settings.openaiChain === 'full-input';
  }

  private tool(): Item {
    if (this.toolVersion === 'computer_use_preview')
      return {
        type: 'computer_use_preview',
        display_width: this.settings.display.width,
        display_height: this.settings.display.height,
        environment: 'linux',
      };
    return { type: 'computer' };
  }

  private async call(turnInput: Item[], signal: AbortSignal | undefined): Promise<ComputerUseTurn> {
    if (this.fullInput) this.input.push(...turnInput);
    const body: Record<string, unknown> = {
      model: this.modelId,
      tools: [this.tool()],
      input: this.fullInput ? this.input : turnInput,
      max_output_tokens: this.settings.maxOutputTokens ?? 4096,
      truncation: 'auto',
      reasoning: { summary: 'auto' },
      ...(this.settings.system !== undefined && { instructions: this.settings.system }),
      ...(this.fullInput
        ? { store: false, include: ['reasoning.encrypted_content'] }
        : this.previousResponseId !== undefined && {
            previous_response_id: this.previousResponseId,
          }),
    };
    let response: Record<string, unknown>;
    try {
      response = (await (
        await this.client()
      ).responses.create(body as never, {
        signal,
      })) as unknown as Record<string, unknown>;
    } catch (error) {
      throw toModelError(error, 'openai');
    }
    const output = (Array.isArray(response.output) ? response.output : []) as Item[];
    if (this.fullInput) this.input.push(...output);
    this.previousResponseId = typeof response.id === 'string' ? response.id : undefined;
    const calls: ComputerUseCall[] = output
      .filter(item => item.type === 'computer_call')
      .map(item => ({
        id: String(item.call_id),
        raw: item,
        safetyChecks: (Array.isArray(item.pending_safety_checks)
          ? item.pending_safety_checks
          : []
        ).map((check: Item): SafetyCheck => ({
          id: String(check.id),
          ...(typeof check.code === 'string' && { code: check.code }),
          ...(typeof check.message === 'string' && { message: check.message }),
        })),
      }));
    this.lastCalls = calls;
    const parts = output
      .filter(item => item.type === 'message')
      .flatMap(item => (Array.isArray(item.content) ? (item.content as Item[]) : []));
    const text = parts
      .filter(part => part.type === 'output_text')
      .map(part => String(part.text))
      .join('\n');
    const refusals = parts
      .filter(part => part.type === 'refusal')
      .map(part => String(part.refusal));
    const reasoning = output
      .filter(item => item.type === 'reasoning')
      .flatMap(item => (Array.isArray(item.summary) ? (item.summary as Item[]) : []))
      .map(summary => String(summary.text))
      .join('\n');
    const modelId = typeof response.model === 'string' ? response.model : this.modelId;
    return {
      calls,
      text,
      ...(reasoning !== '' && { reasoning }),
      ...(refusals.length > 0 && { refusal: refusals.join('\n') }),
      finishReason: typeof response.status === 'string' ? response.status : null,
      usage: { ...openAIResponsesUsage(response.usage), modelId },
      modelId,
      raw: response,
    };
  }

  start(
    instruction: string,
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    return this.call(
      [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: instruction },
            { type: 'input_image', image_url: dataUrl(screenshot), detail: 'high' },
          ],
        },
      ],
      signal,
    );
  }

  /** A `computer_call_output` with the screenshot for every call; failures told in a user message. */
  next(
    outcomes: readonly CallOutcome[],
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    const byId = new Map(outcomes.map(outcome => [outcome.callId, outcome]));
    const items: Item[] = this.lastCalls.map(call => {
      const outcome = byId.get(call.id);
      return {
        type: 'computer_call_output',
        call_id: call.id,
        ...(outcome?.acknowledgeSafetyChecks &&
          call.safetyChecks.length > 0 && {
            acknowledged_safety_checks: call.safetyChecks.map(check => ({
              id: check.id,
              ...(check.code !== undefined && { code: check.code }),
              ...(check.message !== undefined && { message: check.message }),
            })),
          }),
        output: { type: 'computer_screenshot', image_url: dataUrl(screenshot) },
      };
    });
    const errors = outcomes
      .filter(outcome => outcome.error !== undefined)
      .map(outcome => outcome.error!);
    if (errors.length > 0)
      items.push({ role: 'user', content: [{ type: 'input_text', text: errors.join('\n') }] });
    if (items.length === 0)
      items.push({
        role: 'user',
        content: [{ type: 'input_image', image_url: dataUrl(screenshot), detail: 'high' }],
      });
    return this.call(items, signal);
  }
}
