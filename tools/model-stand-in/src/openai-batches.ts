import { isAnswerReply } from './answer-content';
import { HttpError, isRecord } from './http-exchange';
import { describeOpenaiRequest } from './model-call';
import { refuseAsVendor } from './vendor-refusals';
import { openaiChatCompletion, openaiErrorBody } from './openai-wire';
import { shuffled } from './faults';
import type { StandInContext } from './stand-in-context';
import { unixSeconds } from './stand-in-context';

const FILE_PURPOSES = new Set(['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals']);

const BATCH_ENDPOINT = '/v1/chat/completions';

interface StoredFile {
  id: string;
  bytes: Buffer;
  filename: string;
  purpose: string;
  createdAt: number;
}

interface BatchLine {
  customId: string;
  body: Record<string, unknown>;
}

interface LineProblem {
  code: string;
  message: string;
  line: number;
}

type BatchStatus =
  'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'cancelling' | 'cancelled';

interface StoredBatch {
  object: Record<string, unknown> & { id: string; status: BatchStatus };
  headers: Record<string, string>;
  lines: BatchLine[];
  problems: LineProblem[];
}

function fileObject(file: StoredFile): Record<string, unknown> {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes.length,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
    expires_at: null,
  };
}

function parseBatchLines(text: string): { lines: BatchLine[]; problems: LineProblem[] } {
  const lines: BatchLine[] = [];
  const problems: LineProblem[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, position) => {
    const line = position + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push({ code: 'invalid_json_line', message: 'This line is not valid JSON.', line });
      return;
    }
    if (!isRecord(value) || typeof value.custom_id !== 'string' || value.custom_id === '') {
      problems.push({ code: 'missing_required_parameter', message: 'custom_id is missing.', line });
      return;
    }
    if (seen.has(value.custom_id)) {
      problems.push({
        code: 'duplicate_custom_id',
        message: `custom_id ${value.custom_id} is used more than once.`,
        line,
      });
      return;
    }
    seen.add(value.custom_id);
    if (value.method !== 'POST' || value.url !== BATCH_ENDPOINT || !isRecord(value.body)) {
      problems.push({
        code: 'invalid_request',
        message: `Each line needs method 'POST', url '${BATCH_ENDPOINT}' and a JSON object body.`,
        line,
      });
      return;
    }
    lines.push({ customId: value.custom_id, body: value.body });
  });
  if (lines.length === 0 && problems.length === 0)
    problems.push({ code: 'empty_file', message: 'The input file has no requests.', line: 1 });
  return { lines, problems };
}

function jsonLines(values: readonly unknown[]): Buffer {
  return Buffer.from(values.map(value => `${JSON.stringify(value)}\n`).join(''));
}

/** OpenAI files and batches, kept in memory. */
export class OpenaiBatchStore {
  private readonly files = new Map<string, StoredFile>();
  private readonly batches = new Map<string, StoredBatch>();

  constructor(private readonly context: StandInContext) {}

  /** `POST /v1/files`: a multipart/form-data upload with `purpose` and `file`. */
  async uploadFile(
    body: Buffer,
    contentType: string | undefined,
  ): Promise<Record<string, unknown>> {
    if (!contentType?.startsWith('multipart/form-data'))
      throw new HttpError(400, 'files must be uploaded as multipart/form-data');
    let form: FormData;
    try {
      form = await new Request('http://model-stand-in/', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: new Uint8Array(body),
      }).formData();
    } catch (error) {
      throw new HttpError(
        400,
        `the multipart body cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const purpose = form.get('purpose');
    const upload = form.get('file');
    if (typeof purpose !== 'string' || !FILE_PURPOSES.has(purpose))
      throw new HttpError(400, `purpose: one of ${[...FILE_PURPOSES].join(', ')} is required`);
    if (upload === null || typeof upload === 'string')
      throw new HttpError(400, 'file: a file part is required');
    const file: StoredFile = {
      id: this.context.nextId('file-'),
      bytes: Buffer.from(await upload.arrayBuffer()),
      filename: upload.name || 'upload',
      purpose,
      createdAt: unixSeconds(),
    };
    this.files.set(file.id, file);
    return fileObject(file);
  }

  private storedFile(id: string): StoredFile {
    const file = this.files.get(id);
    if (!file) throw new HttpError(404, `No such File object: ${id}`);
    return file;
  }

  /** `GET /v1/files/:id`. */
  retrieveFile(id: string): Record<string, unknown> {
    return fileObject(this.storedFile(id));
  }

  /** `GET /v1/files/:id/content`. */
  fileContent(id: string): Buffer {
    return this.storedFile(id).bytes;
  }

  /** `GET /v1/files`. */
  listFiles(): Record<string, unknown> {
    const data = [...this.files.values()].reverse().map(fileObject);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: false,
    };
  }

  /** `DELETE /v1/files/:id`. */
  deleteFile(id: string): Record<string, unknown> {
    this.storedFile(id);
    this.files.delete(id);
    return { id, object: 'file', deleted: true };
  }

  private storeFile(bytes: Buffer, filename: string, purpose: string): string {
    const id = this.context.nextId('file-');
    this.files.set(id, { id, bytes, filename, purpose, createdAt: unixSeconds() });
    return id;
  }

  /** `POST /v1/batches`. */
  createBatch(
    body: Record<string, unknown>,
    headers: Record<string, string>,
  ): Record<string, unknown> {
    if (typeof body.input_file_id !== 'string')
      throw new HttpError(400, 'input_file_id: a string is required');
    if (body.endpoint !== BATCH_ENDPOINT)
      throw new HttpError(400, `endpoint: the model stand-in supports only '${BATCH_ENDPOINT}'`);
    if (body.completion_window !== '24h')
      throw new HttpError(400, "completion_window: only '24h' is supported");
    if (body.metadata !== undefined && body.metadata !== null && !isRecord(body.metadata))
      throw new HttpError(400, 'metadata: an object of strings is expected');
    const input = this.files.get(body.input_file_id);
    if (!input) throw new HttpError(400, `input_file_id: no such file ${body.input_file_id}`);
    if (input.purpose !== 'batch')
      throw new HttpError(
        400,
        `input_file_id: file ${input.id} has purpose '${input.purpose}', not 'batch'`,
      );
    const createdAt = unixSeconds();
    const id = this.context.nextId('batch_');
    const batch: StoredBatch = {
      object: {
        id,
        object: 'batch',
        endpoint: BATCH_ENDPOINT,
        model: null,
        errors: null,
        input_file_id: input.id,
        completion_window: '24h',
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: createdAt,
        in_progress_at: null,
        expires_at: createdAt + 24 * 60 * 60,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        cancelling_at: null,
        cancelled_at: null,
        request_counts: { total: 0, completed: 0, failed: 0 },
        metadata: body.metadata ?? null,
      },
      headers,
      ...parseBatchLines(input.bytes.toString('utf8')),
    };
    this.batches.set(id, batch);
    const completeAfterMs = this.context.completeAfterMs;
    this.context.schedule(Math.min(50, completeAfterMs / 4), () => this.startBatch(batch));
    this.context.schedule(completeAfterMs, () => this.finishBatch(batch));
    return { ...batch.object };
  }

  private startBatch(batch: StoredBatch): void {
    if (batch.object.status !== 'validating') return;
    if (batch.problems.length > 0) {
      Object.assign(batch.object, {
        status: 'failed',
        failed_at: unixSeconds(),
        errors: {
          object: 'list',
          data: batch.problems.map(problem => ({ ...problem, param: null })),
        },
      });
      return;
    }
    Object.assign(batch.object, {
      status: 'in_progress',
      in_progress_at: unixSeconds(),
      request_counts: { total: batch.lines.length, completed: 0, failed: 0 },
    });
  }

  private async finishBatch(batch: StoredBatch): Promise<void> {
    if (batch.object.status !== 'in_progress') return;
    Object.assign(batch.object, { status: 'finalizing', finalizing_at: unixSeconds() });
    const outputs: unknown[] = [];
    const errors: unknown[] = [];
    for (const line of batch.lines) {
      const lineId = this.context.nextId('batch_req_');
      const requestId = this.context.nextId('req_');
      const failure = (statusCode: number, message: string) =>
        errors.push({
          id: lineId,
          custom_id: line.customId,
          response: {
            status_code: statusCode,
            request_id: requestId,
            body: openaiErrorBody(statusCode, message),
          },
          error: null,
        });
      let described;
      try {
        described = describeOpenaiRequest(line.body);
        refuseAsVendor(described);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        failure(error.status, error.message);
        continue;
      }
      const outcome = await this.context.runBatchCall(
        described,
        batch.headers,
        batch.object.id,
        line.customId,
      );
      if ('error' in outcome) {
        failure(500, outcome.error);
        continue;
      }
      const { call, reply } = outcome;
      if (isAnswerReply(reply)) {
        const completion = openaiChatCompletion(
          call,
          reply,
          {
            completionId: this.context.nextId('chatcmpl-'),
            toolCallId: this.context.nextId('call_'),
          },
          unixSeconds(),
        );
        outputs.push({
          id: lineId,
          custom_id: line.customId,
          response: { status_code: 200, request_id: requestId, body: completion },
          error: null,
        });
      } else if ('status' in reply) {
        errors.push({
          id: lineId,
          custom_id: line.customId,
          response: {
            status_code: reply.status,
            request_id: requestId,
            body:
              reply.body ??
              openaiErrorBody(reply.status, reply.message ?? `scripted error ${reply.status}`),
          },
          error: null,
        });
      } else {
        errors.push({
          id: lineId,
          custom_id: line.customId,
          response: null,
          error: {
            code: 'batch_expired',
            message: 'This request could not be executed before the completion window expired.',
          },
        });
      }
    }
    if ((batch.object.status as BatchStatus) !== 'finalizing') return;
    const id = batch.object.id;
    const random = this.context.shuffleRandom;
    Object.assign(batch.object, {
      status: 'completed',
      completed_at: unixSeconds(),
      output_file_id: this.storeFile(
        jsonLines(shuffled(outputs, random)),
        `${id}_output.jsonl`,
        'batch_output',
      ),
      error_file_id:
        errors.length > 0
          ? this.storeFile(jsonLines(shuffled(errors, random)), `${id}_error.jsonl`, 'batch_output')
          : null,
      request_counts: {
        total: batch.lines.length,
        completed: outputs.length,
        failed: errors.length,
      },
    });
  }

  private storedBatch(id: string): StoredBatch {
    const batch = this.batches.get(id);
    if (!batch) throw new HttpError(404, `No batch found with id '${id}'.`);
    return batch;
  }

  /** `GET /v1/batches/:id`. */
  retrieveBatch(id: string): Record<string, unknown> {
    return { ...this.storedBatch(id).object };
  }

  /** `GET /v1/batches`. */
  listBatches(): Record<string, unknown> {
    const data = [...this.batches.values()].reverse().map(batch => ({ ...batch.object }));
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: false,
    };
  }

  /** `POST /v1/batches/:id/cancel`: a batch not yet finalizing is cancelled shortly after. */
  cancelBatch(id: string): Record<string, unknown> {
    const batch = this.storedBatch(id);
    const status = batch.object.status;
    if (status === 'validating' || status === 'in_progress') {
      Object.assign(batch.object, { status: 'cancelling', cancelling_at: unixSeconds() });
      this.context.schedule(Math.min(20, this.context.completeAfterMs / 4), () => {
        Object.assign(batch.object, { status: 'cancelled', cancelled_at: unixSeconds() });
      });
    } else if (status !== 'cancelling' && status !== 'cancelled') {
      throw new HttpError(409, `Cannot cancel a batch with status '${status}'.`);
    }
    return { ...batch.object };
  }
}
