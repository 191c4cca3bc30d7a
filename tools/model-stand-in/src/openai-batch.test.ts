import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelStandIn } from './index';
import type { ModelCall, ModelStandIn } from './index';

/** One line of a batch output file. */
interface OutputLine {
  custom_id: string;
  error: unknown;
  response: { status_code: number; body: OpenAI.ChatCompletion };
}

let server: ModelStandIn | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const verdictFormat = {
  type: 'json_schema',
  json_schema: {
    name: 'verdict',
    strict: true,
    schema: {
      type: 'object',
      properties: { task: { type: 'string' }, safety: { type: 'boolean' } },
      required: ['task', 'safety'],
      additionalProperties: false,
    },
  },
};

function inputLines(customIds: string[]): string {
  return customIds
    .map(customId =>
      JSON.stringify({
        custom_id: customId,
        method: 'POST',
        url: '/v1/chat/completions',
        body: {
          model: 'gpt-4.1',
          messages: [{ role: 'user', content: `Judge ${customId}.` }],
          response_format: verdictFormat,
        },
      }),
    )
    .join('\n');
}

async function waitForBatch(
  client: OpenAI,
  id: string,
  done: (status: string) => boolean,
): Promise<OpenAI.Batch> {
  const seen = new Set<string>();
  for (let poll = 0; poll < 200; poll += 1) {
    const batch = await client.batches.retrieve(id);
    seen.add(batch.status);
    if (done(batch.status)) return Object.assign(batch, { seenStatuses: [...seen] });
    await new Promise(resolve => setTimeout(resolve, 10));
  }
  throw new Error(`batch ${id} did not finish`);
}

describe('OpenAI batch flow through the SDK', () => {
  it('uploads, runs and answers every custom_id, with a scripted failure in the error file', async () => {
    const customIds = Array.from({ length: 12 }, (_, index) => `task-${index}`);
    const seen: ModelCall[] = [];
    server = await startModelStandIn({
      respond: call => {
        seen.push(call);
        return call.customId === 'task-3'
          ? { status: 500, message: 'scripted failure' }
          : { object: { task: call.customId!, safety: true } };
      },
      batch: { completeAfterMs: 100 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test', maxRetries: 0 });

    const file = await client.files.create({
      file: await toFile(Buffer.from(inputLines(customIds)), 'judge-batch.jsonl'),
      purpose: 'batch',
    });
    expect(file).toMatchObject({ object: 'file', filename: 'judge-batch.jsonl', purpose: 'batch' });
    expect(file.id).toMatch(/^file-/);
    expect(file.bytes).toBe(Buffer.byteLength(inputLines(customIds)));
    expect((await client.files.retrieve(file.id)).id).toBe(file.id);

    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { run: 'unit-test' },
    });
    expect(created).toMatchObject({
      object: 'batch',
      status: 'validating',
      input_file_id: file.id,
      metadata: { run: 'unit-test' },
    });
    expect(seen).toHaveLength(0);

    const batch = await waitForBatch(client, created.id, status => status === 'completed');
    expect((batch as OpenAI.Batch & { seenStatuses: string[] }).seenStatuses).toContain(
      'in_progress',
    );
    expect(batch.request_counts).toEqual({ total: 12, completed: 11, failed: 1 });
    expect(batch.completed_at).toBeGreaterThan(0);

    const output = await (await client.files.content(batch.output_file_id!)).text();
    const lines = output
      .trim()
      .split('\n')
      .map(line => JSON.parse(line) as OutputLine);
    expect(lines).toHaveLength(11);
    const answered = lines.map(line => line.custom_id);
    expect([...answered].sort()).toEqual(customIds.filter(id => id !== 'task-3').sort());
    expect(answered).not.toEqual(customIds.filter(id => id !== 'task-3')); // shuffled
    for (const line of lines) {
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      const content = line.response.body.choices[0]!.message.content!;
      expect(JSON.parse(content)).toEqual({ task: line.custom_id, safety: true });
    }

    const errors = await (await client.files.content(batch.error_file_id!)).text();
    const errorLines = errors
      .trim()
      .split('\n')
      .map(line => JSON.parse(line));
    expect(errorLines).toEqual([
      {
        id: expect.stringMatching(/^batch_req_/),
        custom_id: 'task-3',
        response: {
          status_code: 500,
          request_id: expect.any(String),
          body: { error: expect.objectContaining({ message: 'scripted failure' }) },
        },
        error: null,
      },
    ]);

    expect(seen.map(call => call.customId)).toEqual(customIds);
    expect(seen.every(call => call.via === 'batch' && call.batchId === created.id)).toBe(true);
    expect(seen[0]!.structuredOutput).toMatchObject({ mode: 'json-schema', name: 'verdict' });
    expect(server.calls.every(call => call.via === 'batch')).toBe(true);
    expect(server.calls[0]!.headers.authorization).toBe('<redacted>');
    expect((await client.files.retrieve(batch.output_file_id!)).purpose).toBe('batch_output');
  });

  it('shuffles the same way for the same seed', async () => {
    const orders: string[][] = [];
    for (let run = 0; run < 2; run += 1) {
      const stand = await startModelStandIn({
        respond: () => ({ text: 'ok' }),
        batch: { completeAfterMs: 20 },
        faults: { seed: 99 },
      });
      const client = new OpenAI({ baseURL: stand.openaiBaseUrl, apiKey: 'test' });
      const file = await client.files.create({
        file: await toFile(Buffer.from(inputLines(['a', 'b', 'c', 'd', 'e', 'f'])), 'in.jsonl'),
        purpose: 'batch',
      });
      const created = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      const batch = await waitForBatch(client, created.id, status => status === 'completed');
      const text = await (await client.files.content(batch.output_file_id!)).text();
      orders.push(
        text
          .trim()
          .split('\n')
          .map(line => (JSON.parse(line) as { custom_id: string }).custom_id),
      );
      await stand.close();
    }
    expect(orders[0]).toEqual(orders[1]);
  });

  it('fails a batch whose input has a broken line, and cancels another', async () => {
    server = await startModelStandIn({
      respond: () => ({ text: 'ok' }),
      batch: { completeAfterMs: 400 },
    });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test' });
    const broken = await client.files.create({
      file: await toFile(Buffer.from(`${inputLines(['a'])}\n{"custom_id": "b",`), 'bad.jsonl'),
      purpose: 'batch',
    });
    const failing = await client.batches.create({
      input_file_id: broken.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const failed = await waitForBatch(client, failing.id, status => status === 'failed');
    expect(failed.errors?.data?.[0]).toMatchObject({ code: 'invalid_json_line', line: 2 });

    const good = await client.files.create({
      file: await toFile(Buffer.from(inputLines(['a', 'b'])), 'good.jsonl'),
      purpose: 'batch',
    });
    const running = await client.batches.create({
      input_file_id: good.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const cancelling = await client.batches.cancel(running.id);
    expect(cancelling.status).toBe('cancelling');
    const cancelled = await waitForBatch(client, running.id, status => status === 'cancelled');
    expect(cancelled.cancelled_at).toBeGreaterThan(0);
    expect(server.calls).toHaveLength(0);

    await expect(
      client.batches.create({
        input_file_id: 'file-missing',
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(client.batches.retrieve('batch_missing')).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });

  it('lists and deletes files', async () => {
    server = await startModelStandIn({ respond: () => ({ text: 'ok' }) });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: 'test' });
    const file = await client.files.create({
      file: new File(['hello'], 'hello.txt'),
      purpose: 'user_data',
    });
    const listed = [];
    for await (const item of client.files.list()) listed.push(item.id);
    expect(listed).toEqual([file.id]);
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  });
});
