import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  expandUser,
  expandVars,
  type GuestContext,
  HttpError,
  readForm,
  readJson,
  type Routes,
  sendFile,
  sendJson,
  sendText,
} from './guest-http';

/** `/file`, `/setup/upload`, `/list_directory`, `/setup/download_file`. */
export function fileRoutes(context: GuestContext): Routes {
  const { env } = context;
  return {
    '/file': {
      methods: ['POST'],
      handle: async (request, response) => {
        const fields = await readForm(request);
        const raw = fields.get('file_path');
        if (raw === undefined) {
          sendJson(response, 400, { error: 'file_path is required' });
          return;
        }
        const path = expandVars(expandUser(raw, env), env);
        if (!existsSync(path)) {
          sendJson(response, 404, { error: 'File not found' });
          return;
        }
        try {
          await sendFile(response, path);
        } catch (error) {
          if (error instanceof HttpError && !response.headersSent)
            sendJson(response, error.status, error.body);
          else if (!response.headersSent)
            sendJson(response, 500, { error: `Failed to serve file: ${(error as Error).message}` });
          else response.destroy();
        }
      },
    },
    '/setup/upload': {
      methods: ['POST'],
      handle: async (request, response) => {
        let target: string | undefined;
        let staged: string | undefined;
        let received = false;
        try {
          const fields = await readForm(request, async (field, stream, known) => {
            if (field !== 'file_data' || received) {
              stream.resume();
              return;
            }
            received = true;
            const raw = known.get('file_path');
            if (raw !== undefined) {
              target = expandVars(expandUser(raw, env), env);
              await mkdir(dirname(target), { recursive: true });
              await pipeline(stream, createWriteStream(target));
            } else {
              // file_data came before file_path: stage it, move it once the path is known.
              staged = join(tmpdir(), `osharm_upload_${randomUUID()}`);
              await pipeline(stream, createWriteStream(staged));
            }
          });
          const raw = fields.get('file_path');
          if (raw === undefined || !received) {
            sendJson(response, 400, { error: 'file_path and file_data are required' });
            return;
          }
          if (staged) {
            target = expandVars(expandUser(raw, env), env);
            await mkdir(dirname(target), { recursive: true });
            await copyFile(staged, target);
          }
          const size = (await stat(target as string)).size;
          sendText(response, 200, `File Uploaded: ${size} bytes`);
        } catch (error) {
          if (target) await rm(target, { force: true }).catch(() => {});
          if (error instanceof HttpError) throw error;
          sendJson(response, 500, { status: 'error', message: (error as Error).message });
        } finally {
          if (staged) await unlink(staged).catch(() => {});
        }
      },
    },
    '/list_directory': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        if (typeof body.path !== 'string') {
          sendJson(response, 400, { error: "Missing 'path' parameter" });
          return;
        }
        const start = body.path;
        const info = await stat(start).catch(() => undefined);
        if (!info?.isDirectory()) {
          sendJson(response, 400, { error: 'The specified path is not a directory' });
          return;
        }
        let budget = 100_000;
        const walk = async (directory: string, depth: number): Promise<Record<string, unknown>> => {
          const tree: { type: string; name: string; children: unknown[] } = {
            type: 'directory',
            name: basename(directory),
            children: [],
          };
          try {
            for (const entry of await readdir(directory)) {
              budget -= 1;
              if (budget < 0) break;
              const full = join(directory, entry);
              const isDirectory = await stat(full).then(
                s => s.isDirectory(),
                () => false,
              );
              if (isDirectory && depth < 64) tree.children.push(await walk(full, depth + 1));
              else tree.children.push({ type: 'file', name: entry });
            }
          } catch (error) {
            return { error: (error as Error).message };
          }
          return tree;
        };
        sendJson(response, 200, {
          directory_tree: await walk(start.replace(/\/+$/, '') || '/', 0),
        });
      },
    },
    '/setup/download_file': {
      methods: ['POST'],
      handle: async (request, response) => {
        const body = await readJson(request);
        if (typeof body.url !== 'string' || typeof body.path !== 'string') {
          sendText(response, 400, 'Path or URL not supplied!');
          return;
        }
        const path = expandVars(expandUser(body.path, env), env);
        try {
          const download = await fetch(body.url, { signal: AbortSignal.timeout(300_000) });
          if (!download.ok || !download.body) throw new Error(`HTTP ${download.status}`);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, Buffer.from(await download.arrayBuffer()));
          sendText(response, 200, 'File downloaded successfully');
        } catch (error) {
          sendText(response, 500, `Failed to download ${body.url}: ${(error as Error).message}`);
        }
      },
    },
  };
}
