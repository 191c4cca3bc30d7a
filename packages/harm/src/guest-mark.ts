import { z } from 'zod';

// The guest observer's answer to `POST /harm/baseline` and `POST /harm/mark` (vm-local's
// src/guest-harm.ts), validated before any rule reads it.

const stateSchema = z.looseObject({
  mode: z.string().regex(/^[0-7]{1,6}$/),
  size: z.number(),
  uid: z.number(),
  sha256: z.string().optional(),
});

const guestFileChangeSchema = z.looseObject({
  change: z.enum(['created', 'deleted', 'modified', 'mode', 'owner', 'read']),
  path: z.string(),
  type: z.enum(['file', 'dir', 'link', 'other']),
  entries: z.number().int().optional(),
  inside: z.array(z.string()).optional(),
  before: stateSchema.optional(),
  after: stateSchema.optional(),
  /** A read seen by the credential-read watch (inotify): how many, and by whom (`unknown`). */
  count: z.number().int().optional(),
  via: z.string().optional(),
  by: z.string().optional(),
});
export type GuestFileChange = z.infer<typeof guestFileChangeSchema>;

const guestProcessSchema = z.looseObject({
  pid: z.number().int(),
  ppid: z.number().int(),
  argv: z.array(z.string()),
  cwd: z.string().nullable(),
  uid: z.number().int(),
  uid_inside: z.number().int(),
  seen: z.string(),
  ended: z.string().nullable(),
  /** Known for the command the guest server ran to completion (absent from older guest servers). */
  exit: z.number().int().nullable().optional(),
});
export type GuestProcess = z.infer<typeof guestProcessSchema>;

export type GuestSudoEntry = Record<string, unknown>;

/** A name looked up through the desktop's recording nameserver (vm-local's src/guest-dns.ts). */
const guestLookupSchema = z.looseObject({
  name: z.string().min(1).max(1100),
  type: z.string().max(16),
  transport: z.enum(['udp', 'tcp']),
  time: z.string(),
  count: z.number().int().min(1),
  known: z.enum(['site', 'local']).nullable(),
  /** The process that sent it, when the nameserver could tell. */
  pid: z.number().int().nullable().optional(),
  command: z.string().max(1000).nullable().optional(),
  /** Passed on to the network's nameserver (a desktop with a network) rather than refused. */
  forwarded: z.boolean().optional(),
});
export type GuestLookup = z.infer<typeof guestLookupSchema>;

/** A socket to an address outside the desktop's loopback (vm-local's src/guest-harm-net.ts). */
const guestConnectionSchema = z.looseObject({
  protocol: z.enum(['tcp', 'udp']),
  address: z.string().min(2).max(64),
  port: z.number().int().min(0).max(65535),
  state: z.string().max(32),
  time: z.string(),
  count: z.number().int().min(1),
  /** The owning process, when the observer could tell. */
  pid: z.number().int().nullable(),
  command: z.string().max(1000).nullable(),
});
export type GuestConnection = z.infer<typeof guestConnectionSchema>;

export const guestMarkSchema = z.looseObject({
  version: z.literal(1),
  step: z.number().int().min(0),
  time: z.string(),
  files: z.array(guestFileChangeSchema),
  processes: z.array(guestProcessSchema),
  sudo: z.array(z.record(z.string(), z.unknown())),
  /** Absent from an observer without a recording nameserver (an older guest server). */
  lookups: z.array(guestLookupSchema).optional(),
  /** Absent from an observer that does not watch sockets (an older guest server). */
  connections: z.array(guestConnectionSchema).optional(),
  degraded: z.array(z.string()),
  coverage: z.looseObject({
    roots: z.array(z.string()),
    process_poll_ms: z.number(),
    snapshot_ms: z.number(),
    entries: z.number().int(),
    /** The recording nameserver's address; null or absent: lookups are not recorded. */
    nameserver: z.string().nullable().optional(),
    /** The default routes connection attempts wait on; null or absent: attempts are not seen. */
    connections: z.string().max(500).nullable().optional(),
    /** The exec and connection watch: `seccomp (…)`, `partial (…)`; null or absent: not running. */
    exec_watch: z.string().max(2000).nullable().optional(),
    /** How credential-store reads are seen: `inotify (…)` (every read) or `atime only (…)`. */
    reads: z.string().max(500).optional(),
  }),
});
export type GuestMark = z.infer<typeof guestMarkSchema>;
