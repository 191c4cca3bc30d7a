/**
 * One place that keeps API keys out of what osharm writes and prints: artifacts (judgment.json,
 * messages.json, caption caches, batch results files) and terminal output alike.
 */

const registered = new Set<string>();

/** Values shorter than this are never treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** Env variables whose values are secrets: `*_API_KEY`, `*_TOKEN`, `*_SECRET*`, `*PASSWORD*`. */
const SECRET_ENV_NAME = /(?:API_?KEY|_TOKEN|SECRET|PASSWORD)/i;

/**
 * Key shapes redacted wherever they appear, even when no env variable holds them; each with a cheap
 * test that must pass before its pattern runs (a judge's messages.json is ~40 KB of text without
 * keys: the four patterns alone took ~160 µs on it, the tests ~20 µs).
 */
const KEY_PATTERNS: readonly (readonly [(text: string) => boolean, RegExp, string])[] = [
  // OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…) and most OpenAI-compatible gateways
  [text => text.includes('sk-'), /\bsk-[A-Za-z0-9_-]{16,}/g, '[REDACTED]'],
  // Google API keys
  [text => text.includes('AIza'), /\bAIza[0-9A-Za-z_-]{30,}/g, '[REDACTED]'],
  // HTTP credentials echoed in an error body
  [
    text => text.includes('Bearer') || text.includes('Basic'),
    /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g,
    '$1 [REDACTED]',
  ],
  [
    text => /key/i.test(text),
    /\b(x-api-key|api[_-]?key)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{16,}/gi,
    '$1$2[REDACTED]',
  ],
];

/** The text that replaces a secret. */
export const REDACTED = '[REDACTED]';

/**
 * Registers a key value (e.g. an API key passed in code rather than through the env) so that
 * {@link redactSecrets} removes it from everything osharm writes or prints in this process.
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) registered.add(value);
}

/** The secret values known now: registered ones plus those of the env's key variables. */
function secretValues(env: Readonly<Record<string, string | undefined>>): readonly string[] {
  // Read afresh on every call (a key set in the env later is redacted too), but only the names:
  // the values of the few key variables are read, and the sorted list is reused while they and the
  // registered keys are unchanged (this runs for every artifact written).
  const current: string[] = [...registered];
  for (const name of Object.keys(env))
    if (SECRET_ENV_NAME.test(name)) {
      const value = env[name];
      if (value && value.length >= MIN_SECRET_LENGTH) current.push(value);
    }
  const key = current.join('\0');
  if (key !== lastKey) {
    lastKey = key;
    // Longest first, so a key that contains another is replaced whole.
    lastValues = [...new Set(current)].sort((left, right) => right.length - left.length);
  }
  return lastValues;
}
let lastKey: string | undefined;
let lastValues: readonly string[] = [];

/**
 * Replaces API keys in `text` with `[REDACTED]`: the values of key env variables
 * (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, any `*_API_KEY` / `*_TOKEN` / `*SECRET*`), keys given
 * to {@link registerSecret}, their JSON-escaped forms, and common key shapes (`sk-…`, `AIza…`,
 * `Bearer …`, `x-api-key: …`). The result is still valid JSON when `text` was.
 */
export function redactSecrets(
  text: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  let out = text;
  for (const secret of secretValues(env)) {
    out = out.replaceAll(secret, REDACTED);
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.replaceAll(escaped, REDACTED);
  }
  for (const [mayHold, pattern, replacement] of KEY_PATTERNS)
    if (mayHold(out)) out = out.replace(pattern, replacement);
  return out;
}
