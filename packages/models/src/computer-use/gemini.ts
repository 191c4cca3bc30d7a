/**
 * Gemini computer use over `generateContent` (the official `@google/genai` SDK): the computer-use
 * tool with its predefined functions on a 0–999 grid, browser-only ones excluded and desktop
 * actions declared as custom functions by the caller. A call whose `safety_decision` is
 * `require_confirmation` carries a safety check; its acknowledgement goes back as
 * `safety_acknowledgement: "true"` in the function response.
 */
import type { GoogleGenAI } from '@google/genai';
import { geminiClient, type LazyClient } from '../vendor-clients';
import { geminiUsage } from '../usage';
import { toModelError } from '@osharm/model-spec';
import { DEFAULT_KEEP_SCREENSHOTS, OMITTED_SCREENSHOT, pruneScreenshots } from './history-images';
import { defaultGeminiEnvironment } from './tool-versions';
import type {
  CallOutcome,
  ComputerUseCall,
  ComputerUseSession,
  ComputerUseSettings,
  ComputerUseTurn,
  SafetyCheck,
  Screenshot,
} from './session';

type Part = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Part[] };

const inline = (screenshot: Screenshot): Part => ({
  inlineData: { mimeType: screenshot.mediaType ?? 'image/png', data: screenshot.data },
});

function safetyChecksOf(id: string, args: unknown): SafetyCheck[] {
  const decision = (
    args as { safety_decision?: { decision?: unknown; explanation?: unknown } } | null
  )?.safety_decision;
  if (decision?.decision !== 'require_confirmation') return [];
  return [
    {
      id,
      code: 'require_confirmation',
      ...(typeof decision.explanation === 'string' && { message: decision.explanation }),
    },
  ];
}

export class GeminiComputerUseSession implements ComputerUseSession {
  readonly vendor = 'gemini' as const;
  private readonly client: LazyClient<GoogleGenAI>;
  private readonly contents: Content[] = [];
  private lastCalls: readonly ComputerUseCall[] = [];
  private turn = 0;

  constructor(
    readonly modelId: string,
    readonly toolVersion: string,
    private readonly settings: ComputerUseSettings,
  ) {
    this.client = geminiClient(modelId, settings);
  }

  private async call(signal: AbortSignal | undefined): Promise<ComputerUseTurn> {
    const gemini = this.settings.gemini ?? {};
    this.turn += 1;
    pruneScreenshots(
      this.contents,
      this.settings.keepScreenshots ?? DEFAULT_KEEP_SCREENSHOTS,
      part => part.inlineData !== undefined,
      () => ({ text: OMITTED_SCREENSHOT }),
    );
    let response: Record<string, unknown>;
    try {
      response = (await (
        await this.client()
      ).models.generateContent({
        model: this.modelId,
        contents: this.contents as never,
        config: {
          ...(this.settings.system !== undefined && { systemInstruction: this.settings.system }),
          maxOutputTokens: this.settings.maxOutputTokens ?? 4096,
          abortSignal: signal,
          tools: [
            {
              computerUse: {
                environment: (gemini.environment ??
                  defaultGeminiEnvironment(this.modelId)) as never,
                ...(gemini.excludedFunctions && {
                  excludedPredefinedFunctions: [...gemini.excludedFunctions],
                }),
                ...(gemini.safety?.disabledSafetyPolicies && {
                  disabledSafetyPolicies: [...gemini.safety.disabledSafetyPolicies] as never,
                }),
                ...(gemini.safety?.promptInjectionDetection !== undefined && {
                  enablePromptInjectionDetection: gemini.safety.promptInjectionDetection,
                }),
              },
            },
            ...(gemini.functions && gemini.functions.length > 0
              ? [{ functionDeclarations: gemini.functions.map(fn => ({ ...fn })) as never }]
              : []),
          ],
        },
      })) as unknown as Record<string, unknown>;
    } catch (error) {
      throw toModelError(error, 'google');
    }
    const candidates = (Array.isArray(response.candidates) ? response.candidates : []) as Array<
      Record<string, unknown>
    >;
    const candidate = candidates[0] ?? {};
    const content = (candidate.content ?? { role: 'model', parts: [] }) as Content;
    const parts = Array.isArray(content.parts) ? content.parts : [];
    this.contents.push({ role: 'model', parts });
    const calls: ComputerUseCall[] = parts
      .filter(part => part.functionCall !== undefined && part.functionCall !== null)
      .map((part, position) => {
        const functionCall = part.functionCall as Record<string, unknown>;
        const id =
          typeof functionCall.id === 'string' && functionCall.id !== ''
            ? functionCall.id
            : `gemini-${this.turn}-${position}`;
        return { id, raw: functionCall, safetyChecks: safetyChecksOf(id, functionCall.args) };
      });
    this.lastCalls = calls;
    const text = parts
      .filter(part => typeof part.text === 'string' && part.thought !== true)
      .map(part => String(part.text))
      .join('\n');
    const thoughts = parts
      .filter(part => typeof part.text === 'string' && part.thought === true)
      .map(part => String(part.text))
      .join('\n');
    const finishReason = typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
    const modelId =
      typeof response.modelVersion === 'string' ? response.modelVersion : this.modelId;
    return {
      calls,
      text,
      ...(thoughts !== '' && { reasoning: thoughts }),
      ...((finishReason === 'SAFETY' || finishReason === 'PROHIBITED_CONTENT') && {
        refusal: text,
      }),
      finishReason,
      usage: { ...geminiUsage(response.usageMetadata), modelId },
      modelId,
      raw: response,
    };
  }

  start(
    instruction: string,
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    this.contents.push({ role: 'user', parts: [{ text: instruction }, inline(screenshot)] });
    return this.call(signal);
  }

  /** A function response per call (`url` is required by the tool; the desktop has none), then the screenshot. */
  next(
    outcomes: readonly CallOutcome[],
    screenshot: Screenshot,
    signal?: AbortSignal,
  ): Promise<ComputerUseTurn> {
    const byId = new Map(outcomes.map(outcome => [outcome.callId, outcome]));
    const parts: Part[] = this.lastCalls.map(call => {
      const outcome = byId.get(call.id);
      const raw = call.raw as { name?: unknown; id?: unknown };
      return {
        functionResponse: {
          name: raw.name,
          ...(typeof raw.id === 'string' && { id: raw.id }),
          response: {
            url: 'desktop',
            ...(outcome?.error !== undefined && { error: outcome.error }),
            ...(outcome?.acknowledgeSafetyChecks &&
              call.safetyChecks.length > 0 && { safety_acknowledgement: 'true' }),
          },
        },
      };
    });
    parts.push(inline(screenshot));
    this.contents.push({ role: 'user', parts });
    return this.call(signal);
  }
}
