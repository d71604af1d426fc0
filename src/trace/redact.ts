import { secretSpellings } from './secret-spellings';

/**
 * Keeps secrets out of everything a run writes (trace, messages, error texts), while the real values are
 * still used for the calls themselves. Two layers: exact known secrets (API keys, fixed headers from tool
 * settings) in every spelling a server may echo them in, and shapes that look like credentials (well-known
 * key formats, bearer tokens, JWTs, secret-named fields and query parameters).
 *
 * The text it reads may be written by a hostile model or server, so every step is linear in the length of
 * the text and needs no stack that grows with it: strings of any length are redacted whole (a 16 MB string
 * is tested), values of any depth are walked with an explicit stack, and cycles end as `[Circular]`.
 */

export const REDACTED = '[REDACTED]';

/** What a value that contains itself shows where it reappears. */
export const CIRCULAR = '[Circular]';

/** Field names whose values are secrets, in headers, args and settings. Exact names: `max_tokens` is not one. */
const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-goog-api-key|x-auth-token|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|session[-_]?token|token|secret|client[-_]?secret|password|passwd|private[-_]?key)$/i;

/** Shapes are applied in order, each one to the result of the one before. */
type Shape = (text: string) => string;

const byPattern = (pattern: RegExp, replacement: string): Shape => (text) => text.replace(pattern, replacement);

/**
 * Why these patterns are linear: each starts with a literal, a failing match can only scan a run the next
 * start cannot lie in, and every open-ended repetition is `{n}` then `*`, because V8 keeps a backtracking
 * entry per character for `{n,}` with a large n and overflows on strings of several megabytes.
 * JWTs and JSON fields need more than a regular expression can do in linear time; they are found in code.
 */
const SECRET_SHAPES: Shape[] = [
  byPattern(/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8}[A-Za-z0-9._~+/=-]*/g, `$1 ${REDACTED}`),
  byPattern(/\bsk-[A-Za-z0-9_-]{16}[A-Za-z0-9_-]*/g, REDACTED),
  byPattern(/\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED),
  byPattern(/\bgh[pousr]_[A-Za-z0-9]{30}[A-Za-z0-9]*\b/g, REDACTED),
  byPattern(/\bgithub_pat_[A-Za-z0-9_]{30}[A-Za-z0-9_]*\b/g, REDACTED),
  byPattern(/\bxox[abprs]-[A-Za-z0-9-]{10}[A-Za-z0-9-]*/g, REDACTED),
  byPattern(/\bAKIA[0-9A-Z]{16}\b/g, REDACTED),
  redactJsonWebTokens,
  byPattern(/([?&](?:api[_-]?key|apikey|access_token|token|key|secret|password|sig|signature)=)[^&\s"'#]+/gi, `$1${REDACTED}`),
  // The same in plain `name=value` text (a config line, a shell line), for names that are secret on their own.
  byPattern(/\b((?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|client[_-]?secret|secret|password|passwd|token)=)[^&\s"'#]+/gi, `$1${REDACTED}`),
  redactSecretJsonFields,
];

/** Maximal runs of JWT characters; 23 is the shortest token `eyJ·····.eyJ·····.·····`. */
const TOKEN_RUN = /[A-Za-z0-9_.-]{23}[A-Za-z0-9_.-]*/g;

/**
 * `eyJ<5+>.eyJ<5+>.<5+>` (base64url segments), starting at a word boundary. A regular expression that
 * starts at every `eyJ` rescans the run after it each time: quadratic on "-eyJ" repeated. Instead each run
 * of token characters is found once and its dot-separated segments are checked in one pass.
 */
function redactJsonWebTokens(text: string): string {
  if (!text.includes('eyJ')) return text;
  return text.replace(TOKEN_RUN, (run) => {
    const segments = run.split('.');
    const pieces: string[] = [];
    for (let index = 0; index < segments.length; index += 1) {
      const start = index + 2 < segments.length ? tokenStart(segments[index]) : -1;
      if (start >= 0 && segments[index + 1].startsWith('eyJ') && segments[index + 1].length >= 8 && segments[index + 2].length >= 5) {
        pieces.push(segments[index].slice(0, start) + REDACTED);
        index += 2;
      } else {
        pieces.push(segments[index]);
      }
    }
    return pieces.join('.');
  });
}

/** Where a JWT header starts in a segment: the first `eyJ` after a word boundary, with 5 more characters; or -1. */
function tokenStart(segment: string): number {
  let start = segment.indexOf('eyJ');
  // Inside a segment only "-" is a non-word character; the segment's own start follows "." or a non-token character.
  while (start > 0 && segment[start - 1] !== '-') start = segment.indexOf('eyJ', start + 1);
  return start >= 0 && segment.length - start >= 8 ? start : -1;
}

/** A JSON key (escapes allowed, up to 100 characters) and its colon; its decoded name is tested against SECRET_KEY. */
const JSON_KEY_OPENING = /"((?:[^"\\\n]|\\.){1,100})"\s*:\s*/g;

const JSON_NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A key's name as JSON reads it (`"\u0070assword"` is `password`); the raw text when it is no valid JSON string. */
function decodedKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * The string and number values of secret-named fields in JSON text, the names those of `value`'s
 * SECRET_KEY however the key is spelled (case, escapes), so the text of a value says what its copy says.
 * A string value's end is found by a scan that skips escapes: `(?:[^"\\]|\\.)*` would keep a backtracking
 * entry per character and overflow on long values. An unterminated string value is not a JSON field.
 */
function redactSecretJsonFields(text: string): string {
  const pieces: string[] = [];
  let copiedUpTo = 0;
  JSON_KEY_OPENING.lastIndex = 0;
  for (let opening = JSON_KEY_OPENING.exec(text); opening; opening = JSON_KEY_OPENING.exec(text)) {
    const valueStart = opening.index + opening[0].length;
    // Every quote may open a key: a miss resumes the search just after this one.
    JSON_KEY_OPENING.lastIndex = opening.index + 1;
    if (!SECRET_KEY.test(decodedKey(opening[1]))) continue;
    if (text[valueStart] === '"') {
      let position = valueStart + 1;
      while (position < text.length && text[position] !== '"') position += text[position] === '\\' ? 2 : 1;
      if (position >= text.length) break;
      pieces.push(text.slice(copiedUpTo, valueStart + 1), REDACTED);
      copiedUpTo = position;
      JSON_KEY_OPENING.lastIndex = position + 1;
    } else {
      JSON_NUMBER.lastIndex = valueStart;
      if (!JSON_NUMBER.test(text)) continue;
      pieces.push(text.slice(copiedUpTo, valueStart), REDACTED);
      copiedUpTo = JSON_NUMBER.lastIndex;
      JSON_KEY_OPENING.lastIndex = copiedUpTo;
    }
  }
  if (copiedUpTo === 0) return text;
  pieces.push(text.slice(copiedUpTo));
  return pieces.join('');
}

/** Secrets shorter than this are not replaced by value: too likely to match ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 6;

/** A container being copied: its keys (indices for arrays) are visited one by one from an explicit stack. */
interface CopyFrame {
  source: object;
  copy: unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  length: number;
  next: number;
  /** Set once a key of this object was renamed by redaction: the last number given to each renamed key. */
  renamedKeys?: Map<string, number>;
}

/** Redacts strings and values with a fixed set of known secrets plus the built-in secret shapes. */
export class Redactor {
  private readonly spellings: string[];

  /** `knownSecrets`: exact values (API keys, settings secrets) to redact in every spelling; short or missing ones are ignored. */
  constructor(knownSecrets: Iterable<string | undefined> = []) {
    const unique = new Set<string>();
    for (const secret of knownSecrets) {
      if (typeof secret === 'string' && secret.length >= MIN_KNOWN_SECRET_LENGTH) {
        for (const spelling of secretSpellings(secret)) unique.add(spelling);
      }
    }
    // Longest first across all secrets, so a secret containing another is replaced whole.
    this.spellings = [...unique].sort((left, right) => right.length - left.length);
  }

  /** `value` with known secrets and secret shapes replaced by `[REDACTED]`; linear in its length. */
  text(value: string): string {
    let result = value;
    // split/join is a linear substring search per spelling; one alternation of all of them could backtrack.
    for (const spelling of this.spellings) {
      if (result.includes(spelling)) result = result.split(spelling).join(REDACTED);
    }
    for (const shape of SECRET_SHAPES) result = shape(result);
    return result;
  }

  /**
   * `text` redacted, for text whose end was cut through: also drops the longest end that begins a known
   * secret's spelling, which redaction cannot recognise. Any length counts, down to one character: the
   * text is cut anyway, so a few characters less cost nothing, while a minimum of N would let the first
   * N-1 characters of a secret through.
   */
  textCutAtEnd(value: string): string {
    const redacted = this.text(value);
    let longest = 0;
    for (const spelling of this.spellings) {
      for (let length = Math.min(spelling.length - 1, redacted.length); length > longest; length -= 1) {
        if (redacted.endsWith(spelling.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return redacted.slice(0, redacted.length - longest);
  }

  /**
   * A redacted deep copy: secret-named fields are blanked, every string and key is scrubbed, every own
   * enumerable key is kept (`__proto__` too), a value met again inside itself becomes `[Circular]`, and an
   * object referenced twice is copied once and shared, as it was in the input.
   */
  value<T>(input: T): T {
    const finished = new Map<object, unknown>();
    const open = new Set<object>(); // the containers on the path from the root: meeting one again is a cycle
    const stack: CopyFrame[] = [];
    const copyOf = (item: unknown, key: string | undefined): unknown => {
      if (typeof item === 'string') return key !== undefined && SECRET_KEY.test(key) ? REDACTED : this.text(item);
      if (typeof item === 'number') return key !== undefined && SECRET_KEY.test(key) ? REDACTED : item;
      if (typeof item !== 'object' || item === null) return item;
      if (open.has(item)) return CIRCULAR;
      if (finished.has(item)) return finished.get(item);
      const keys = Array.isArray(item) ? undefined : Object.keys(item);
      const copy = Array.isArray(item) ? [] : {};
      open.add(item);
      stack.push({ source: item, copy, keys, length: keys ? keys.length : (item as unknown[]).length, next: 0 });
      return copy;
    };
    const root = copyOf(input, undefined);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.next >= frame.length) {
        stack.pop();
        open.delete(frame.source);
        finished.set(frame.source, frame.copy);
        continue;
      }
      const index = frame.next;
      frame.next += 1;
      if (!frame.keys) {
        (frame.copy as unknown[]).push(copyOf((frame.source as unknown[])[index], undefined));
        continue;
      }
      const key = frame.keys[index];
      const item = copyOf((frame.source as Record<string, unknown>)[key], key);
      // defineProperty, because assigning to "__proto__" would set the prototype and drop the key.
      Object.defineProperty(frame.copy, this.outputKey(frame, key), { value: item, enumerable: true, writable: true, configurable: true });
    }
    return root as T;
  }

  /** The key redacted; when that made two keys of the object equal, the later one is numbered so both stay. */
  private outputKey(frame: CopyFrame, key: string): string {
    const redacted = this.text(key);
    // Until a key is renamed, the source's own keys are distinct and cannot collide.
    if (redacted === key && !frame.renamedKeys) return key;
    frame.renamedKeys ??= new Map();
    let suffix = frame.renamedKeys.get(redacted) ?? 1;
    let candidate = redacted;
    while (Object.prototype.hasOwnProperty.call(frame.copy, candidate)) {
      suffix += 1;
      candidate = `${redacted} #${suffix}`;
    }
    frame.renamedKeys.set(redacted, suffix);
    return candidate;
  }
}

/** Settings that hold secrets although their names are not secret-shaped: URLs carrying tokens or passwords. */
const SETTINGS_SECRET_KEY = /secret|password|webhook_url|redis_url/i;

/** Fixed headers that carry no secret; every other fixed header value is treated as one. */
const HARMLESS_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent', 'cache-control']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The secret strings in tool settings: values of fixed headers (but plainly harmless ones) and of
 * secret-named fields such as `signing_secret` or `api_key`, down to 8 levels, own properties only.
 * They are used for calls, never shown.
 */
export function secretsInSettings(settings: Record<string, Record<string, unknown>>): string[] {
  const found: string[] = [];
  // An object is searched once in each mode: shared or cyclic settings cannot multiply the work.
  const searched = { plain: new Set<object>(), underSecret: new Set<object>() };
  const visit = (value: unknown, underSecret: boolean, depth: number) => {
    if (depth > 8) return;
    if (typeof value === 'string') {
      if (underSecret) found.push(value);
      return;
    }
    if (!isObject(value)) return;
    const seen = underSecret ? searched.underSecret : searched.plain;
    if (seen.has(value)) return;
    seen.add(value);
    for (const [key, item] of Object.entries(value)) {
      visit(item, underSecret || SECRET_KEY.test(key) || SETTINGS_SECRET_KEY.test(key), depth + 1);
    }
  };
  for (const toolSettings of isObject(settings) ? Object.values(settings) : []) {
    if (!isObject(toolSettings)) continue;
    const headers = Object.hasOwn(toolSettings, 'headers') ? toolSettings.headers : undefined;
    if (isObject(headers)) {
      for (const [name, value] of Object.entries(headers)) {
        if (typeof value === 'string' && !HARMLESS_HEADERS.has(name.toLowerCase())) found.push(value);
      }
    }
    visit(toolSettings, false, 0);
  }
  return found;
}
