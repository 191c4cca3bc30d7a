import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callJudgeModel, CAPTION_INSTRUCTION, DEFAULT_CAPTION_MODEL } from '@osharm/judge';
import { JUDGMENT_OUTPUT } from '@osharm/judge/internal';
import {
  checkModelAtStart,
  createComputerUseSession,
  createModel,
  endpointRouting,
  missingCredentials,
  resolveEndpoint,
  routeModel,
  toModelError,
  type ModelEndpoint,
  type ModelRole,
} from '@osharm/models';
import { RUN_DEFAULTS } from './run-options';

/** What `osharm models check` checks: the roles of a run, each as the run would call it. */
interface ModelsCheckOptions {
  /** The agent model. @default RUN_DEFAULTS.model */
  readonly model?: string;
  /** The judge model. @default RUN_DEFAULTS.judgeModel */
  readonly judgeModel?: string;
  /** The captioner model. @default the judge's default captioner */
  readonly captionerModel?: string;
  /** `native`: the agent is checked with the vendor's computer tool. @default 'prompt' */
  readonly agent?: 'prompt' | 'native';
  readonly computerTool?: string;
  readonly baseUrl?: string;
  readonly judgeBaseUrl?: string;
  readonly captionerBaseUrl?: string;
  readonly maxRetries?: number;
  /** Seconds. */
  readonly timeout?: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

/** One role's check. */
export interface ModelCheckLine {
  readonly role: ModelRole | 'agent (native)';
  readonly model: string;
  readonly ok: boolean;
  /** The model id the response named. */
  readonly served?: string;
  readonly latencyMs?: number;
  /** Why it failed: the vendor's error in one line, a missing key, a retired model. */
  readonly error?: string;
  /** Where it was called (`describeEndpoint` of the role). */
  readonly endpoint: ModelEndpoint;
}

// An 8x8 white PNG: the screenshot of the check (every vendor takes it; no run's image is sent).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAD0lEQVR42mP4jwMwDC0JALoev0GJ6La7AAAAAElFTkSuQmCC',
  'base64',
);
const SYSTEM =
  'You are checking that this model endpoint works. Answer in as few words as you can.';

function oneLine(error: unknown): string {
  const model = toModelError(error, 'unknown');
  const text = `${model.status !== undefined ? `${model.status} ` : ''}${model.code !== undefined && model.code !== String(model.status) ? `${model.code}: ` : ''}${model.message}`;
  return text.replace(/\s+/g, ' ').slice(0, 400);
}

async function timed(
  call: () => Promise<string | undefined>,
): Promise<Pick<ModelCheckLine, 'ok' | 'served' | 'latencyMs' | 'error'>> {
  const started = performance.now();
  try {
    const served = await call();
    return {
      ok: true,
      ...(served && { served }),
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { ok: false, error: oneLine(error), latencyMs: Math.round(performance.now() - started) };
  }
}

const servedOf = (response: unknown): string | undefined => {
  const model = (response as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : undefined;
};

/**
 * One minimal live call per role, shaped as `osharm run` sends it: the agent a system prompt and a
 * turn with a screenshot at the run's max_tokens / temperature / top_p (filtered by the capability
 * table); the native agent the vendor's computer tool and a screenshot; the judge the judgment's
 * structured output with an image; the captioner a caption request with an image. A retired model
 * or a missing key fails its line without a call.
 */
export async function checkModels(options: ModelsCheckOptions): Promise<ModelCheckLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'osharm-models-check-'));
  const image = join(dir, 'screenshot.png');
  await writeFile(image, PNG);
  const common = {
    maxRetries: options.maxRetries,
    timeoutSeconds: options.timeout,
    env: options.env,
  };
  const roles: [ModelRole, string, string | undefined, string][] = [
    ['agent', options.model ?? RUN_DEFAULTS.model, options.baseUrl, '--base-url'],
    [
      'judge',
      options.judgeModel ?? RUN_DEFAULTS.judgeModel,
      options.judgeBaseUrl,
      '--judge-base-url',
    ],
    [
      'captioner',
      options.captionerModel ?? DEFAULT_CAPTION_MODEL,
      options.captionerBaseUrl,
      '--captioner-base-url',
    ],
  ];
  try {
    const lines: ModelCheckLine[] = [];
    for (const [role, model, value, name] of roles) {
      const endpoint = resolveEndpoint({ role, model, flag: { name, value }, ...common });
      const native = role === 'agent' && options.agent === 'native';
      const label = native ? 'agent (native)' : role;
      const start = checkModelAtStart(role, model);
      const missing =
        endpoint.vendor === 'gemini'
          ? options.env.GEMINI_API_KEY
            ? undefined
            : 'GEMINI_API_KEY'
          : missingCredentials(endpoint, options.env);
      const refusal = start.refusal ?? (missing ? `no API key: set ${missing}` : undefined);
      if (refusal) {
        lines.push({ role: label, model, ok: false, error: refusal, endpoint });
        continue;
      }
      const routing = endpointRouting(endpoint, options.env);
      const outcome = await timed(async () => {
        if (native) {
          const session = createComputerUseSession(model, {
            display: { width: 1280, height: 720 },
            ...(options.computerTool !== undefined && { toolVersion: options.computerTool }),
            system: SYSTEM,
            env: options.env,
            ...(endpoint.baseURL !== undefined && { baseURL: endpoint.baseURL }),
            maxRetries: endpoint.maxRetries,
            timeout: endpoint.timeoutMs,
          });
          const turn = await session.start(
            'Do not act. Answer "ok".',
            { data: PNG.toString('base64') },
            options.signal,
          );
          return turn.modelId;
        }
        if (role === 'agent') {
          if (routeModel(model).wire === 'gemini')
            throw new Error(`${model}: Gemini models run only with --agent native`);
          // The prompt agent calls this same model (createModel) with these options.
          const result = await createModel(model, routing).generate({
            system: SYSTEM,
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'Given the screenshot, answer "ok".' },
                  { type: 'image', data: PNG.toString('base64') },
                ],
              },
            ],
            maxOutputTokens: RUN_DEFAULTS.maxTokens,
            temperature: RUN_DEFAULTS.temperature,
            topP: RUN_DEFAULTS.topP,
            ...(options.signal && { signal: options.signal }),
          });
          return result.modelId;
        }
        const result = await callJudgeModel(createModel(model, routing), {
          prompt: {
            ...(role === 'judge' && { system: SYSTEM }),
            messages: [
              {
                role: 'user',
                content: [
                  {
                    type: 'text',
                    text:
                      role === 'judge'
                        ? 'Judge this one-step trajectory: the agent did nothing. It is safe and not a success; no violation step.'
                        : CAPTION_INSTRUCTION,
                  },
                  { type: 'image', path: image, detail: 'high' },
                ],
              },
            ],
          },
          ...(role === 'judge' && { output: JUDGMENT_OUTPUT }),
          ...(options.signal && { abortSignal: options.signal }),
        });
        return servedOf(result.response);
      });
      lines.push({ role: label, model, ...outcome, endpoint });
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
