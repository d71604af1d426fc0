/**
 * Keeps secrets out of everything a run writes (trace, messages, error texts), while the real values are
 * still used for the calls themselves. Two layers: exact known secrets (API keys, fixed headers from tool
 * settings) wherever they appear, and shapes that look like credentials (well-known key formats, bearer
 * tokens, secret-named fields and query parameters).
 */

export const REDACTED = '[REDACTED]';

/** Field names whose values are secrets, in headers, args and settings. Exact names: `max_tokens` is not one. */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-goog-api-key|x-auth-token|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|session[-_]?token|token|secret|client[-_]?secret|password|passwd|private[-_]?key)$/i;

const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, REDACTED],
  [/([?&](?:api[_-]?key|apikey|access_token|token|key|secret|password|sig|signature)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
  [
    /("(?:authorization|cookie|x-api-key|api[_-]?key|apikey|access_token|refresh_token|token|secret|client_secret|password)"\s*:\s*")(?:[^"\\]|\\.)*(")/gi,
    `$1${REDACTED}$2`,
  ],
];

/** Secrets shorter than this are not replaced by value: too likely to match ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 6;

export class Redactor {
  private readonly knownSecrets: string[];

  constructor(knownSecrets: Iterable<string | undefined> = []) {
    const unique = new Set<string>();
    for (const secret of knownSecrets) {
      if (typeof secret === 'string' && secret.length >= MIN_KNOWN_SECRET_LENGTH) unique.add(secret);
    }
    // Longest first, so a secret containing another is replaced whole.
    this.knownSecrets = [...unique].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let result = value;
    for (const secret of this.knownSecrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    for (const [pattern, replacement] of SECRET_SHAPES) result = result.replace(pattern, replacement);
    return result;
  }

  /** A redacted deep copy: secret-named fields are blanked, every string is scrubbed. */
  value<T>(input: T): T {
    return this.walk(input, 0) as T;
  }

  private walk(input: unknown, depth: number): unknown {
    if (typeof input === 'string') return this.text(input);
    if (typeof input !== 'object' || input === null || depth > 64) return input;
    if (Array.isArray(input)) return input.map((item) => this.walk(item, depth + 1));
    const output: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(input)) {
      output[key] = SECRET_KEY.test(key) && (typeof item === 'string' || typeof item === 'number') ? REDACTED : this.walk(item, depth + 1);
    }
    return output;
  }
}

/** Settings that hold secrets although their names are not secret-shaped: URLs carrying tokens or passwords. */
const SETTINGS_SECRET_KEY = /secret|password|webhook_url|redis_url/i;

/** Fixed headers that carry no secret; every other fixed header value is treated as one. */
const HARMLESS_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent', 'cache-control']);

/**
 * The secret strings in tool settings: values of fixed headers (but plainly harmless ones) and of
 * secret-named fields such as `signing_secret` or `api_key`. They are used for calls, never shown.
 */
export function secretsInSettings(settings: Record<string, Record<string, unknown>>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, underSecret: boolean, depth: number) => {
    if (depth > 8) return;
    if (typeof value === 'string') {
      if (underSecret) found.push(value);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, item] of Object.entries(value)) {
      visit(item, underSecret || SECRET_KEY.test(key) || SETTINGS_SECRET_KEY.test(key), depth + 1);
    }
  };
  for (const toolSettings of Object.values(settings)) {
    const headers = toolSettings.headers;
    if (typeof headers === 'object' && headers !== null) {
      for (const [name, value] of Object.entries(headers)) {
        if (typeof value === 'string' && !HARMLESS_HEADERS.has(name.toLowerCase())) found.push(value);
      }
    }
    visit(toolSettings, false, 0);
  }
  return found;
}
