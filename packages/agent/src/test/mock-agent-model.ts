import type { ModelCallOptions, ModelResult, ModelV1, TokenUsage } from '@osharm/models';

/** A scripted answer: its text, or the text with usage and finish reason. */
export type MockAgentAnswer =
  | string
  | {
      readonly text: string;
      readonly usage: TokenUsage;
      readonly finishReason: string | null;
    };

/** Settings of {@link MockAgentModel}. */
export interface MockAgentModelSettings {
  /** @default 'mock-agent-model' */
  readonly modelId?: string;
  /** @default 'mock' */
  readonly provider?: string;
  /**
   * What `generate` answers: one answer for every call, one per call (an array; a call past its
   * end throws), or a function of the call and its 0-based index (which may throw). @default '```\nDONE\n```'
   */
  readonly generate?:
    | MockAgentAnswer
    | readonly MockAgentAnswer[]
    | ((
        options: ModelCallOptions,
        index: number,
      ) => MockAgentAnswer | PromiseLike<MockAgentAnswer>);
}

function toResult(modelId: string, answer: MockAgentAnswer): ModelResult {
  const { text, usage, finishReason } =
    typeof answer === 'string'
      ? {
          text: answer,
          usage: { inputTokens: 100, outputTokens: Math.ceil(answer.length / 4) },
          finishReason: 'stop',
        }
      : answer;
  return {
    text,
    toolCalls: [],
    finishReason,
    truncated: finishReason === 'length',
    usage: { ...usage, modelId },
    modelId,
    raw: null,
  };
}

/**
 * A test double of @osharm/models' `ModelV1` for the prompt agent: scripted answers, every call
 * recorded (`generateCalls`). It builds no vendor body.
 */
export class MockAgentModel implements ModelV1 {
  readonly specificationVersion = 'model-v1' as const;
  readonly modelId: string;
  readonly provider: string;
  /** Every call's options, in order. */
  readonly generateCalls: ModelCallOptions[] = [];
  private readonly answer: NonNullable<MockAgentModelSettings['generate']>;

  constructor(settings: MockAgentModelSettings = {}) {
    this.modelId = settings.modelId ?? 'mock-agent-model';
    this.provider = settings.provider ?? 'mock';
    this.answer = settings.generate ?? '```\nDONE\n```';
  }

  async generate(options: ModelCallOptions): Promise<ModelResult> {
    const index = this.generateCalls.length;
    this.generateCalls.push(options);
    const { answer } = this;
    if (typeof answer === 'function') return toResult(this.modelId, await answer(options, index));
    if (Array.isArray(answer)) {
      if (index >= answer.length)
        throw new Error(`MockAgentModel: no answer scripted for call ${index + 1}`);
      return toResult(this.modelId, answer[index] as MockAgentAnswer);
    }
    return toResult(this.modelId, answer as MockAgentAnswer);
  }

  buildRequestBody(): Record<string, unknown> {
    throw new Error('MockAgentModel has no vendor body');
  }

  parseResponseBody(): ModelResult {
    throw new Error('MockAgentModel has no vendor body');
  }
}
