// sdkFetch against a real loopback HTTP server: what the vendor SDKs read of a fetch answer, and the
// failures they classify (a refused connection, an abort, an answer cut short).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkFetch } from './sdk-fetch';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

describe('sdkFetch', () => {
  let server: Server;
  let origin: string;
  const routes = new Map<string, Handler>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => routes.get(request.url ?? '')?.(request, body, response));
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
  });

  it('sends method, headers and body; answers status, headers and body as fetch does', async () => {
    routes.set('/echo', (request, body, response) => {
      response.writeHead(201, 'Made', {
        'content-type': 'application/json',
        'x-request-id': 'req_1',
        'set-cookie': ['a=1', 'b=2'],
      });
      response.end(
        JSON.stringify({ method: request.method, auth: request.headers.authorization, body }),
      );
    });
    const answer = await sdkFetch(`${origin}/echo`, {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: '{"model":"m"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.statusText).toBe('Made');
    expect(answer.ok).toBe(true);
    expect(answer.headers.get('x-request-id')).toBe('req_1');
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await answer.json()).toEqual({
      method: 'POST',
      auth: 'Bearer k',
      body: '{"model":"m"}',
    });
  });

  it('an error status is an answer, not a rejection; 204 has no body', async () => {
    routes.set('/limited', (_request, _body, response) => {
      response.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
      response.end('{"error":{"type":"rate_limit_error"}}');
    });
    routes.set('/empty', (_request, _body, response) => {
      response.writeHead(204);
      response.end();
    });
    const limited = await sdkFetch(`${origin}/limited`, {
      method: 'POST',
      body: new Uint8Array([1]),
    });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    expect(await limited.json()).toEqual({ error: { type: 'rate_limit_error' } });
    const empty = await sdkFetch(`${origin}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it('decodes a gzip answer and follows a redirect', async () => {
    routes.set('/zipped', (_request, _body, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
      response.end(gzipSync('{"zipped":true}'));
    });
    routes.set('/moved', (_request, _body, response) => {
      response.writeHead(307, { location: '/zipped' });
      response.end();
    });
    expect(await (await sdkFetch(`${origin}/zipped`)).json()).toEqual({ zipped: true });
    expect(await (await sdkFetch(`${origin}/moved`, { method: 'POST', body: 'x' })).json()).toEqual(
      {
        zipped: true,
      },
    );
  });

  it('a refused connection rejects as fetch does: TypeError "fetch failed", the cause ECONNREFUSED', async () => {
    const closed = createServer();
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise(resolve => closed.close(resolve));
    const error = (await sdkFetch(`http://127.0.0.1:${port}/`).catch(
      (caught: unknown) => caught,
    )) as Error;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it("an abort rejects with the signal's reason; an answer cut short rejects", async () => {
    routes.set('/slow', () => undefined);
    const controller = new AbortController();
    const pending = sdkFetch(`${origin}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const aborted = (await pending.catch((caught: unknown) => caught)) as Error;
    expect(aborted.name).toBe('AbortError');
    routes.set('/cut', (_request, _body, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"partial":');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await expect(sdkFetch(`${origin}/cut`)).rejects.toThrow('fetch failed');
  });

  it('a body it does not send itself (form data) goes through the global fetch', async () => {
    routes.set('/form', (request, body, response) => {
      response.end(JSON.stringify({ type: request.headers['content-type'], body }));
    });
    const form = new FormData();
    form.set('purpose', 'batch');
    const answer = (await (
      await sdkFetch(`${origin}/form`, { method: 'POST', body: form })
    ).json()) as {
      type: string;
      body: string;
    };
    expect(answer.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(answer.body).toContain('name="purpose"');
  });
});
