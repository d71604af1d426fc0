/** The loop breaker's view of an http_request call: the request as it goes on the wire (`Tool.canonicalCall`). */
import { firstHop } from './hop';
import type { HttpRequestArgs } from './settings';

/**
 * The request `execute` would send first, built by the same `firstHop`: the method, the URL as the WHATWG
 * parser writes it (scheme and host lower-cased, IDN as punycode, a default port and dot segments dropped)
 * with `query` merged in as sent and without the fragment (which never leaves the machine), the model's
 * headers by lower-cased name (an empty `headers` is no header), and the body as sent. `timeout_ms` never
 * reaches the target and is left out. Settings headers are the same for every call of a run, so they are
 * left out too (and a secret among them never enters the loop breaker's memory).
 *
 * Text is compared as sent, byte for byte: the tool sends what the model wrote, without Unicode
 * normalisation (an API may sign, hash or store the exact bytes), so a body in NFC and the same body in NFD
 * are two different requests. A JSON body is compared as JSON, member order aside (RFC 8259 §4: an object
 * is unordered), as the loop breaker always did: an object, or a string that is exactly the JSON the tool
 * would write for its value (so `"{\"a\":1}"` and `{"a": 1}` with the same content-type are one request;
 * a string with other spacing, or a number JSON cannot carry exactly, stays text).
 */
export function httpRequestOnTheWire(args: HttpRequestArgs): unknown {
	let hop;
	try {
		// Settings headers only decide whether a default content-type is added; that is the same for every call of a run.
		hop = firstHop(args, { headers: {} });
	} catch {
		// A call the tool refuses before sending (an invalid URL, credentials in it) is compared by its args.
		return args;
	}
	const url = new URL(hop.url.href);
	url.hash = '';
	return {
		request: {
			method: hop.method,
			url: url.href,
			headers: hop.headers,
			...(args.body === undefined ? {} : { body: bodyForm(args.body) }),
		},
	};
}

function bodyForm(body: unknown): { json: unknown } | { text: string } {
	if (typeof body !== 'string') return { json: body };
	try {
		const value: unknown = JSON.parse(body);
		if (JSON.stringify(value) === body) return { json: value };
	} catch {
		// Not JSON: compared as the text it is.
	}
	return { text: body };
}
