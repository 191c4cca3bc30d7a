import { isAnswerReply } from './answer-content';
import { anthropicErrorBody, anthropicMessage } from './anthropic-wire';
import { shuffled } from './faults';
import { HttpError, isRecord } from './http-exchange';
import { describeAnthropicRequest } from './model-call';
import { refuseAsVendor } from './vendor-refusals';
import type { StandInContext } from './stand-in-context';

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

interface BatchRequest {
  customId: string;
  params: unknown;
}

interface RequestCounts {
  processing: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}

interface StoredMessageBatch {
  id: string;
  processingStatus: 'in_progress' | 'canceling' | 'ended';
  requestCounts: RequestCounts;
  createdAt: Date;
  endedAt: Date | null;
  cancelInitiatedAt: Date | null;
  headers: Record<string, string>;
  requests: BatchRequest[];
  results: Buffer | null;
}

/** Anthropic message batches, kept in memory. */
export class AnthropicBatchStore {
  private readonly batches = new Map<string, StoredMessageBatch>();

  constructor(private readonly context: StandInContext) {}

  private batchObject(batch: StoredMessageBatch): Record<string, unknown> {
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: batch.processingStatus,
      request_counts: { ...batch.requestCounts },
      created_at: batch.createdAt.toISOString(),
      ended_at: batch.endedAt?.toISOString() ?? null,
      expires_at: new Date(batch.createdAt.getTime() + 24 * 60 * 60 * 1000).toISOString(),
      archived_at: null,
      cancel_initiated_at: batch.cancelInitiatedAt?.toISOString() ?? null,
      results_url: batch.results
        ? `${this.context.url}/v1/messages/batches/${batch.id}/results`
        : null,
    };
  }

  /** `POST /v1/messages/batches`: `{requests: [{custom_id, params}]}`. */
  createBatch(
    body: Record<string, unknown>,
    headers: Record<string, string>,
  ): Record<string, unknown> {
    if (!Array.isArray(body.requests) || body.requests.length === 0)
      throw new HttpError(400, 'requests: a non-empty array is required');
    const seen = new Set<string>();
    const requests = body.requests.map((request: unknown, position): BatchRequest => {
      if (!isRecord(request) || typeof request.custom_id !== 'string')
        throw new HttpError(400, `requests.${position}.custom_id: a string is required`);
      if (!CUSTOM_ID.test(request.custom_id))
        throw new HttpError(
          400,
          `requests.${position}.custom_id: 1 to 64 letters, digits, '_' or '-' are required`,
        );
      if (seen.has(request.custom_id))
        throw new HttpError(400, `requests: custom_id ${request.custom_id} is used more than once`);
      seen.add(request.custom_id);
      if (!isRecord(request.params))
        throw new HttpError(400, `requests.${position}.params: an object is required`);
      return { customId: request.custom_id, params: request.params };
    });
    const batch: StoredMessageBatch = {
      id: this.context.nextId('msgbatch_'),
      processingStatus: 'in_progress',
      requestCounts: {
        processing: requests.length,
        succeeded: 0,
        errored: 0,
        canceled: 0,
        expired: 0,
      },
      createdAt: new Date(),
      endedAt: null,
      cancelInitiatedAt: null,
      headers,
      requests,
      results: null,
    };
    this.batches.set(batch.id, batch);
    this.context.schedule(this.context.completeAfterMs, () => this.finishBatch(batch));
    return this.batchObject(batch);
  }

  private async finishBatch(batch: StoredMessageBatch): Promise<void> {
    if (batch.processingStatus !== 'in_progress') return;
    const lines: unknown[] = [];
    const counts: RequestCounts = {
      processing: 0,
      succeeded: 0,
      errored: 0,
      canceled: 0,
      expired: 0,
    };
    const errored = (customId: string, status: number, message: string) => {
      counts.errored += 1;
      lines.push({
        custom_id: customId,
        result: {
          type: 'errored',
          error: anthropicErrorBody(status, message, this.context.nextId('req_')),
        },
      });
    };
    for (const request of batch.requests) {
      let described;
      try {
        described = describeAnthropicRequest(request.params as Record<string, unknown>);
        refuseAsVendor(described);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        errored(request.customId, error.status, error.message);
        continue;
      }
      const outcome = await this.context.runBatchCall(
        described,
        batch.headers,
        batch.id,
        request.customId,
      );
      if ('error' in outcome) {
        errored(request.customId, 500, outcome.error);
        continue;
      }
      const { call, reply } = outcome;
      if (isAnswerReply(reply)) {
        counts.succeeded += 1;
        const message = anthropicMessage(
          call,
          reply,
          { messageId: this.context.nextId('msg_'), toolUseId: this.context.nextId('toolu_') },
          'batch',
        );
        lines.push({ custom_id: request.customId, result: { type: 'succeeded', message } });
      } else if ('status' in reply) {
        if (reply.body !== undefined) {
          counts.errored += 1;
          lines.push({
            custom_id: request.customId,
            result: { type: 'errored', error: reply.body },
          });
        } else {
          errored(
            request.customId,
            reply.status,
            reply.message ?? `scripted error ${reply.status}`,
          );
        }
      } else {
        counts.expired += 1;
        lines.push({ custom_id: request.customId, result: { type: 'expired' } });
      }
    }
    if ((batch.processingStatus as string) !== 'in_progress') return;
    this.end(batch, counts, lines);
  }

  private end(batch: StoredMessageBatch, counts: RequestCounts, lines: unknown[]): void {
    batch.processingStatus = 'ended';
    batch.endedAt = new Date();
    batch.requestCounts = counts;
    batch.results = Buffer.from(
      shuffled(lines, this.context.shuffleRandom)
        .map(line => `${JSON.stringify(line)}\n`)
        .join(''),
    );
  }

  private storedBatch(id: string): StoredMessageBatch {
    const batch = this.batches.get(id);
    if (!batch) throw new HttpError(404, `message batch ${id} not found`);
    return batch;
  }

  /** `GET /v1/messages/batches/:id`. */
  retrieveBatch(id: string): Record<string, unknown> {
    return this.batchObject(this.storedBatch(id));
  }

  /** `GET /v1/messages/batches`. */
  listBatches(): Record<string, unknown> {
    const data = [...this.batches.values()].reverse().map(batch => this.batchObject(batch));
    return {
      data,
      has_more: false,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    };
  }

  /** `GET /v1/messages/batches/:id/results`: JSONL, once the batch has ended. */
  results(id: string): Buffer {
    const batch = this.storedBatch(id);
    if (!batch.results)
      throw new HttpError(
        400,
        `message batch ${id} is ${batch.processingStatus}; its results are ready once it has ended`,
      );
    return batch.results;
  }

  /** `POST /v1/messages/batches/:id/cancel`: unprocessed requests end as `canceled`. */
  cancelBatch(id: string): Record<string, unknown> {
    const batch = this.storedBatch(id);
    if (batch.processingStatus === 'in_progress') {
      batch.processingStatus = 'canceling';
      batch.cancelInitiatedAt = new Date();
      this.context.schedule(Math.min(20, this.context.completeAfterMs / 4), () => {
        const canceled = batch.requests.length;
        this.end(
          batch,
          { processing: 0, succeeded: 0, errored: 0, canceled, expired: 0 },
          batch.requests.map(request => ({
            custom_id: request.customId,
            result: { type: 'canceled' },
          })),
        );
      });
    }
    return this.batchObject(batch);
  }
}
