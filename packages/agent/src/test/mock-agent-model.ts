import type { AgentModelCallOptions, AgentModelResult, AgentModelV1 } from '../agent-model';

/** A scripted answer: a result, or just its text. */
export type MockAgentAnswer = AgentModelResult | string;

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
        options: AgentModelCallOptions,
        index: number,
      ) => MockAgentAnswer | PromiseLike<MockAgentAnswer>);
}

function toResult(answer: MockAgentAnswer): AgentModelResult {
  return typeof answer === 'string'
    ? {
        text: answer,
        usage: { inputTokens: 100, outputTokens: Math.ceil(answer.length / 4) },
        finishReason: 'stop',
      }
    : answer;
}

/** A test double of {@link AgentModelV1} that records its calls (`generateCalls`). */
export class MockAgentModel implements AgentModelV1 {
  readonly specificationVersion = 'agent-model-v1' as const;
  readonly modelId: string;
  readonly provider: string;
  /** Every call's options, in order. */
  readonly generateCalls: AgentModelCallOptions[] = [];
  private readonly answer: NonNullable<MockAgentModelSettings['generate']>;

  constructor(settings: MockAgentModelSettings = {}) {
    this.modelId = settings.modelId ?? 'mock-agent-model';
    this.provider = settings.provider ?? 'mock';
    this.answer = settings.generate ?? '```\nDONE\n```';
  }

  async generate(options: AgentModelCallOptions): Promise<AgentModelResult> {
    const index = this.generateCalls.length;
    this.generateCalls.push(options);
    const { answer } = this;
    if (typeof answer === 'function') return toResult(await answer(options, index));
    if (Array.isArray(answer)) {
      if (index >= answer.length)
        throw new Error(`MockAgentModel: no answer scripted for call ${index + 1}`);
      return toResult(answer[index] as MockAgentAnswer);
    }
    return toResult(answer as MockAgentAnswer);
  }
}
