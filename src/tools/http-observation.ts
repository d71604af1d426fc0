import type { FetchedResponse } from './http-fetch';

/**
 * What the model sees of an answer: a summary line and the body as text, cut to the observation length,
 * with every settings-header value (an API token, say) redacted wherever the server echoed it. Redaction
 * always comes before a cut, so no cut can leave part of a secret that redaction would not recognise.
 */

const TEXT_MEDIA_TYPE = /^text\/|[/+](json|xml)$|^application\/(javascript|ecmascript|x-www-form-urlencoded|x-ndjson|ndjson|yaml|x-yaml|graphql|csv|sql)$/;
const JSON_MEDIA_TYPE = /[/+]json$/;

/** Summary line (`HTTP 200 OK · application/json · 1234 bytes`), then the body: JSON compacted, text as is, binary summarised. */
export function renderObservation(response: FetchedResponse): string {
  const [mediaType, ...parameters] = (response.contentType ?? '').split(';').map((part) => part.trim());
  const notes = [response.decodedFrom && `decoded from ${response.decodedFrom}`, response.truncated && `truncated at ${response.body.length} bytes`].filter(Boolean);
  const size = `${response.body.length} bytes${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  const lines = [[`HTTP ${response.status} ${response.statusText}`.trim(), mediaType.toLowerCase(), size].filter(Boolean).join(' · ')];
  if (response.redirects > 0) lines.push(`after ${response.redirects} redirect(s), final URL ${response.finalUrl}`);
  if (response.undecodable) lines.push(`<body in ${response.undecodable}, ${response.body.length} bytes>`);
  else if (response.body.length > 0) lines.push(renderBody(response.body, mediaType.toLowerCase(), parameters, response.truncated));
  return lines.join('\n');
}

function renderBody(body: Buffer, mediaType: string, parameters: string[], truncated: boolean): string {
  const looksTextual = mediaType ? TEXT_MEDIA_TYPE.test(mediaType) : !body.subarray(0, 8192).includes(0);
  if (!looksTextual) return `<binary ${body.length} bytes>`;
  const text = decodeText(body, parameters, truncated);
  if (!JSON_MEDIA_TYPE.test(mediaType)) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text; // a cut or malformed JSON body is still worth showing as it is
  }
}

function decodeText(body: Buffer, parameters: string[], truncated: boolean): string {
  const charset = parameters.find((parameter) => /^charset=/i.test(parameter))?.slice('charset='.length).replace(/"/g, '');
  // A cut can split a character; streaming mode leaves its first bytes out instead of showing U+FFFD,
  // which would also hide from `withoutTrailingPartialSecret` the secret characters before it.
  const options = { stream: truncated };
  try {
    return new TextDecoder(charset || 'utf-8').decode(body, options);
  } catch {
    return new TextDecoder('utf-8').decode(body, options); // unknown charset label
  }
}

/**
 * Cuts `text` so that it fits in `maxLength` characters including the marker `… [cut N characters]`;
 * 0 or a missing length means no limit.
 */
export function cutToLength(text: string, maxLength: number | undefined): string {
  if (!maxLength || maxLength <= 0 || text.length <= maxLength) return text;
  let keep = maxLength;
  // The marker's own length depends on the number it reports; two passes settle it.
  for (let pass = 0; pass < 2; pass += 1) keep = Math.max(0, maxLength - `… [cut ${text.length - keep} characters]`.length);
  const high = text.charCodeAt(keep - 1);
  if (keep > 0 && high >= 0xd800 && high <= 0xdbff) keep -= 1; // do not split a surrogate pair
  return `${text.slice(0, keep)}… [cut ${text.length - keep} characters]`;
}

/** The spellings a settings header value can take when a server echoes it back (raw, JSON-escaped, URL-encoded). */
export function secretSpellings(values: string[]): string[] {
  // Very short values ("1", "yes") are not secrets, and redacting them would garble ordinary text.
  const spellings = values
    .filter((value) => value.length >= 4)
    .flatMap((value) => [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
  return [...new Set(spellings)].sort((left, right) => right.length - left.length);
}

/** Replaces every spelling in `secrets` (longest first, as `secretSpellings` orders them) with `[redacted]`. */
export function redactSecrets(text: string, secrets: string[]): string {
  return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}

/**
 * A body cut at max_response_bytes can end inside a secret the server echoed, where `redactSecrets` finds
 * no whole spelling to replace; the longest end of `text` that begins some spelling is dropped. Any length
 * counts, down to one character: the body is cut anyway, so a few characters less cost the model nothing,
 * while a minimum of N would hand it the first N-1 characters of the secret.
 */
export function withoutTrailingPartialSecret(text: string, secrets: string[]): string {
  let longest = 0;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, text.length); length > longest; length -= 1) {
      if (text.endsWith(secret.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return text.slice(0, text.length - longest);
}
