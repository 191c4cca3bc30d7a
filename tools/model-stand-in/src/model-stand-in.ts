import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AnthropicBatchStore } from './anthropic-batches';
import { anthropicErrorBody } from './anthropic-wire';
import { isAnswerReply, isComputerCallsReply } from './answer-content';
import {
  DEFAULT_FAULT_TIMEOUT_MS,
  DEFAULT_RETRY_AFTER_SECONDS,
  createFaultSequence,
  createSeededRandom,
} from './faults';
import type { FaultOptions, ModelFault } from './faults';
import { HttpError, parseJsonObject, readBody, redactedHeaders, sendJson } from './http-exchange';
import { answerBody } from './answer-body';
import type { ModelWire } from './answer-body';
import { geminiErrorBody } from './gemini-wire';
import {
  describeAnthropicRequest,
  describeGeminiRequest,
  describeOpenaiRequest,
  describeResponsesRequest,
} from './model-call';
import type {
  CallRoute,
  DescribedRequest,
  ModelCall,
  ModelVendor,
  RecordedModelCall,
} from './model-call';
import { OpenaiBatchStore } from './openai-batches';
import { openaiErrorBody } from './openai-wire';
import { checkResponsesTurn } from './responses-wire';
import type { StoredResponse } from './responses-wire';
import { checkScriptedReply } from './scripted-reply';
import type { ScriptedReply } from './scripted-reply';
import type { BatchCallOutcome, StandInContext } from './stand-in-context';
import { findRoute, standInRoutes, type Exchange } from './stand-in-routes';
import { refuseAsVendor } from './vendor-refusals';

/** Options of {@link startModelStandIn}. */
export interface ModelStandInOptions {
  /**
   * Script of the model: called for every model call, direct or inside a batch, in arrival order
   * (a batch's requests in file order). Its reply is replaced when the stand-in injects a fault.
   */
  respond: (call: ModelCall) => ScriptedReply | Promise<ScriptedReply>;
  /** Faults injected into direct calls, drawn from a seeded generator (default: none). */
  faults?: FaultOptions;
  /** Delay before answering each direct call, in ms (default 0). */
  latencyMs?: number;
  /** Batch timing. */
  batch?: {
    /** How long a batch stays in progress before its requests are answered, in ms (default 200). */
    completeAfterMs?: number;
  };
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /**
   * Answer 404 to a model the SDKs' data says is retired (`true`: on today's date). Requests a
   * model's capability row refuses (sampling, tools, images) get the vendor's 400 always.
   */
  refuseRetired?: boolean | Date;
}

/** A running stand-in. */
export interface ModelStandIn {
  /** `http://HOST:PORT`, without a trailing slash. */
  readonly url: string;
  /** `${url}/v1`: the `baseURL` for `new OpenAI({ baseURL, apiKey })`. */
  readonly openaiBaseUrl: string;
  /** `url`: the `baseURL` for `new Anthropic({ baseURL, apiKey })`. */
  readonly anthropicBaseUrl: string;
  /** `url`: the `httpOptions.baseUrl` for `new GoogleGenAI({ apiKey, httpOptions: { baseUrl } })`. */
  readonly geminiBaseUrl: string;
  /** Every model call so far, direct or inside a batch, in arrival order. */
  readonly calls: readonly RecordedModelCall[];
  /** Stops listening, drops open connections (hanging requests included) and pending batches. */
  close(): Promise<void>;
}

/** Default of `batch.completeAfterMs`. */
export const DEFAULT_BATCH_COMPLETE_AFTER_MS = 200;

function checkDuration(value: number | undefined, name: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
    throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`);
}

function hasCredentials(request: IncomingMessage, vendor: ModelVendor): boolean {
  const authorization = request.headers.authorization ?? '';
  const bearer = /^Bearer\s+\S+/i.test(authorization);
  if (vendor === 'openai') return bearer;
  if (vendor === 'gemini') {
    const apiKey = request.headers['x-goog-api-key'];
    return typeof apiKey === 'string' && apiKey.trim() !== '';
  }
  const apiKey = request.headers['x-api-key'];
  return bearer || (typeof apiKey === 'string' && apiKey.trim() !== '');
}

/**
 * Starts a loopback HTTP server that speaks the OpenAI (chat completions, files, batches) and
 * Anthropic (messages, message batches) wire formats, answering every model call as `respond`
 * scripts it, so tests can drive the official SDKs without a network.
 */
export async function startModelStandIn(options: ModelStandInOptions): Promise<ModelStandIn> {
  if (typeof options.respond !== 'function') throw new TypeError('respond must be a function');
  checkDuration(options.latencyMs, 'latencyMs');
  checkDuration(options.batch?.completeAfterMs, 'batch.completeAfterMs');
  const faults = options.faults ?? {};
  const nextFault = createFaultSequence(faults);
  checkDuration(faults.timeoutMs, 'faults.timeoutMs');
  const retryAfterSeconds = faults.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  const faultTimeoutMs = faults.timeoutMs ?? DEFAULT_FAULT_TIMEOUT_MS;
  const latencyMs = options.latencyMs ?? 0;
  const lifetime = new AbortController();
  const calls: RecordedModelCall[] = [];
  let idCounter = 0;

  const nextId = (prefix: string): string => {
    idCounter += 1;
    return `${prefix}${String(idCounter).padStart(6, '0')}`;
  };

  const rateLimitHeaders = (): Record<string, string> => ({
    'retry-after': String(Math.ceil(retryAfterSeconds)),
    'retry-after-ms': String(Math.round(retryAfterSeconds * 1000)),
  });

  const sendError = (
    exchange: Exchange,
    vendor: ModelVendor,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void => {
    const requestId = nextId('req_');
    const body =
      vendor === 'openai'
        ? openaiErrorBody(status, message)
        : vendor === 'gemini'
          ? geminiErrorBody(status, message)
          : anthropicErrorBody(status, message, requestId);
    const idHeader = vendor === 'anthropic' ? 'request-id' : 'x-request-id';
    sendJson(exchange.response, status, body, { [idHeader]: requestId, ...headers });
  };

  /** Records a model call and asks respond() for its reply (any problem becomes `error`). */
  const runCall = async (
    described: DescribedRequest,
    headers: Record<string, string>,
    via: CallRoute,
    fault: ModelFault | undefined,
    batch?: { batchId: string; customId: string },
  ): Promise<BatchCallOutcome> => {
    const index = calls.length;
    const record: RecordedModelCall = {
      vendor: described.vendor,
      endpoint: described.endpoint,
      model: described.model,
      body: described.body,
      headers,
      via,
      index,
      ...(fault && { fault }),
      ...batch,
    };
    calls.push(record);
    const call: ModelCall = { ...described, index, via, fault, ...batch };
    try {
      return { call, reply: checkScriptedReply(await options.respond(call)) };
    } catch (error) {
      record.error = `respond() failed: ${error instanceof Error ? error.message : String(error)}`;
      return { call, error: record.error };
    }
  };

  const wait = async (delayMs: number, signal: AbortSignal): Promise<boolean> => {
    if (delayMs <= 0) return !signal.aborted;
    try {
      await sleep(delayMs, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  };

  const pendingTasks = new Set<Promise<void>>();
  let url = '';
  const context: StandInContext = {
    get url() {
      return url;
    },
    completeAfterMs: options.batch?.completeAfterMs ?? DEFAULT_BATCH_COMPLETE_AFTER_MS,
    runBatchCall: (described, headers, batchId, customId) =>
      runCall(described, headers, 'batch', undefined, { batchId, customId }),
    nextId,
    shuffleRandom: createSeededRandom((faults.seed ?? 1) ^ 0x5eed),
    schedule: (delayMs, task) => {
      const run = (async () => {
        if (!(await wait(delayMs, lifetime.signal))) return;
        await task();
      })();
      pendingTasks.add(run);
      void run.finally(() => pendingTasks.delete(run));
    },
  };
  const openaiBatches = new OpenaiBatchStore(context);
  const anthropicBatches = new AnthropicBatchStore(context);

  /** Responses given on `/v1/responses`, by id, to check the next turn as the API does. */
  const responses = new Map<string, StoredResponse>();

  /**
   * A direct chat completion, response, message or generateContent: fault, respond(), delay,
   * answer.
   */
  const modelCall = async (
    exchange: Exchange,
    wire: ModelWire,
    geminiModel = '',
    geminiVersion = 'v1beta',
  ): Promise<void> => {
    const vendor: ModelVendor =
      wire === 'messages' ? 'anthropic' : wire === 'gemini' ? 'gemini' : 'openai';
    const body = parseJsonObject(await readBody(exchange.request));
    const described =
      wire === 'chat'
        ? describeOpenaiRequest(body)
        : wire === 'responses'
          ? describeResponsesRequest(body)
          : wire === 'gemini'
            ? describeGeminiRequest(geminiModel, body, geminiVersion)
            : describeAnthropicRequest(body);
    refuseAsVendor(described, { refuseRetired: options.refuseRetired ?? false });
    if (wire === 'responses') checkResponsesTurn(body, responses);
    const fault = nextFault();
    const outcome = await runCall(described, redactedHeaders(exchange.request), 'direct', fault);
    if ('error' in outcome) {
      sendError(exchange, vendor, 500, outcome.error);
      return;
    }
    let reply: ScriptedReply = outcome.reply;
    if (fault === 'malformed')
      reply = isComputerCallsReply(reply)
        ? // cut by the token limit before any call
          {
            text: (reply.text ?? '').slice(0, Math.ceil((reply.text ?? '').length / 2)),
            truncated: true,
          }
        : 'text' in reply
          ? // a broken free-text answer is one cut by the token limit
            { text: reply.text.slice(0, Math.ceil(reply.text.length / 2)), truncated: true }
          : { malformed: true, ...('object' in reply && { object: reply.object }) };
    const delayMs = latencyMs + (fault ? 0 : (reply.delayMs ?? 0));
    if (!(await wait(delayMs, exchange.signal))) return;
    if (fault === 'rate-limit') {
      sendError(exchange, vendor, 429, 'Rate limit reached (injected fault).', rateLimitHeaders());
    } else if (fault === 'server-error') {
      sendError(exchange, vendor, 500, 'The server had an error (injected fault).');
    } else if (fault === 'timeout') {
      if (await wait(faultTimeoutMs, exchange.signal)) exchange.response.destroy();
    } else if (fault === 'drop') {
      exchange.request.socket.destroy();
    } else if ('hang' in reply) {
      // Never answer: the client times out, or close() drops the connection.
    } else if ('status' in reply) {
      const headers = { ...(reply.status === 429 && rateLimitHeaders()), ...reply.headers };
      if (reply.body !== undefined) sendJson(exchange.response, reply.status, reply.body, headers);
      else
        sendError(
          exchange,
          vendor,
          reply.status,
          reply.message ?? `scripted error ${reply.status}`,
          headers,
        );
    } else if (isComputerCallsReply(reply) && wire === 'chat') {
      sendError(
        exchange,
        vendor,
        400,
        'a computer-calls reply needs /v1/responses, not chat completions',
      );
    } else if (isAnswerReply(reply) || isComputerCallsReply(reply)) {
      const { body: answer, idHeader } = answerBody(wire, outcome.call, reply, nextId, responses);
      sendJson(exchange.response, 200, answer, { [idHeader]: nextId('req_') });
    }
  };

  const routes = standInRoutes({ modelCall, openaiBatches, anthropicBatches, nextId });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const pathname = new URL(request.url ?? '/', 'http://model-stand-in').pathname;
    const parts = pathname.split('/').filter(part => part !== '');
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    const exchange: Exchange = {
      request,
      response,
      signal: AbortSignal.any([gone.signal, lifetime.signal]),
    };
    // Gemini: POST /v1beta/models/{model}:generateContent (or /v1/…, the SDK's default version)
    const geminiModel =
      method === 'POST' &&
      (parts[0] === 'v1beta' || parts[0] === 'v1') &&
      parts[1] === 'models' &&
      parts.length === 3
        ? /^(.+):generateContent$/.exec(decodeURIComponent(parts[2]!))?.[1]
        : undefined;
    const found =
      geminiModel !== undefined
        ? {
            route: {
              method,
              path: '',
              vendor: 'gemini' as const,
              handle: (exchange: Exchange) => modelCall(exchange, 'gemini', geminiModel, parts[0]),
            },
            id: '',
          }
        : parts[0] === 'v1'
          ? findRoute(routes, method, parts.slice(1))
          : undefined;
    const vendor: ModelVendor =
      found?.route.vendor ??
      (parts[0] === 'v1beta' ? 'gemini' : parts[1] === 'messages' ? 'anthropic' : 'openai');
    try {
      if (!found) {
        request.resume();
        sendError(exchange, vendor, 404, `Unknown request URL: ${method} ${pathname}`);
        return;
      }
      if (!hasCredentials(request, vendor)) {
        request.resume();
        sendError(
          exchange,
          vendor,
          401,
          vendor === 'openai'
            ? 'You did not provide an API key (Authorization: Bearer …).'
            : vendor === 'gemini'
              ? 'An API key is required (x-goog-api-key).'
              : 'An API key is required (x-api-key, or Authorization: Bearer …).',
        );
        return;
      }
      await found.route.handle(exchange, decodeURIComponent(found.id));
    } catch (error) {
      const status =
        error instanceof HttpError ? error.status : error instanceof URIError ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      sendError(
        exchange,
        vendor,
        status,
        status === 500 ? `model stand-in failure: ${message}` : message,
      );
    }
  };

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    geminiBaseUrl: url,
    calls,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        lifetime.abort();
        server.close(error => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }).then(() => Promise.allSettled([...pendingTasks]).then(() => undefined));
      return closing;
    },
  };
}
