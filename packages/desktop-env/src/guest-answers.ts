import type { DirectoryTree, ExecuteResult } from './guest-client';
import { type Answer, InvalidAnswer } from './guest-transport';

// How the guest's answers are read: each helper throws InvalidAnswer when the shape is wrong.

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

export function startsWith(body: Buffer, magic: Buffer): boolean {
  return body.length >= magic.length && body.subarray(0, magic.length).equals(magic);
}

export function parseJson(answer: Answer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new InvalidAnswer('the body is not JSON');
  }
}

export function parseJsonObject(answer: Answer): Record<string, unknown> {
  const json = parseJson(answer);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InvalidAnswer('expected a JSON object');
  }
  return json as Record<string, unknown>;
}

export function requireString(json: Record<string, unknown>, field: string): string {
  const value = json[field];
  if (typeof value !== 'string') throw new InvalidAnswer(`"${field}" is missing or not a string`);
  return value;
}

export function requireNumber(json: Record<string, unknown>, field: string): number {
  const value = json[field];
  if (typeof value !== 'number') throw new InvalidAnswer(`"${field}" is missing or not a number`);
  return value;
}

export function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function parseExecuteResult(json: Record<string, unknown>): ExecuteResult {
  return {
    status: json.status === 'success' ? 'success' : 'error',
    output: stringOr(json.output),
    error: stringOr(json.error),
    returncode: requireNumber(json, 'returncode'),
  };
}

export function parseSize(json: Record<string, unknown>): { width: number; height: number } {
  return { width: requireNumber(json, 'width'), height: requireNumber(json, 'height') };
}

export function isDirectoryTree(value: unknown): value is DirectoryTree {
  if (value === null || typeof value !== 'object') return false;
  const node = value as Record<string, unknown>;
  if ((node.type !== 'directory' && node.type !== 'file') || typeof node.name !== 'string') {
    return false;
  }
  return (
    node.children === undefined ||
    (Array.isArray(node.children) && node.children.every(isDirectoryTree))
  );
}

export function posixBasename(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? 'file';
}
