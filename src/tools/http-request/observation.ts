import type { FetchedResponse } from './fetch';

/**
 * What the model sees of an answer: a summary line and the body as text. The engine then redacts the
 * settings headers' values (an API token, say) wherever the server echoed them, and cuts the result.
 */

const TEXT_MEDIA_TYPE =
	/^text\/|[/+](json|xml)$|^application\/(javascript|ecmascript|x-www-form-urlencoded|x-ndjson|ndjson|yaml|x-yaml|graphql|csv|sql)$/;
const JSON_MEDIA_TYPE = /[/+]json$/;

/** Summary line (`HTTP 200 OK · application/json · 1234 bytes`), then the body: JSON compacted, text as is, binary summarised. */
export function renderObservation(response: FetchedResponse): string {
	const [mediaType, ...parameters] = (response.contentType ?? '')
		.split(';')
		.map((part) => part.trim());
	const notes = [
		response.decodedFrom && `decoded from ${response.decodedFrom}`,
		response.truncated && `truncated at ${response.body.length} bytes`,
	].filter(Boolean);
	const size = `${response.body.length} bytes${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
	const lines = [
		[`HTTP ${response.status} ${response.statusText}`.trim(), mediaType.toLowerCase(), size]
			.filter(Boolean)
			.join(' · '),
	];
	if (response.redirects > 0)
		lines.push(`after ${response.redirects} redirect(s), final URL ${response.finalUrl}`);
	if (response.undecodable)
		lines.push(`<body in ${response.undecodable}, ${response.body.length} bytes>`);
	else if (response.body.length > 0)
		lines.push(renderBody(response.body, mediaType.toLowerCase(), parameters, response.truncated));
	return lines.join('\n');
}

function renderBody(
	body: Buffer,
	mediaType: string,
	parameters: string[],
	truncated: boolean,
): string {
	const looksTextual = mediaType
		? TEXT_MEDIA_TYPE.test(mediaType)
		: !body.subarray(0, 8192).includes(0);
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
	const charset = parameters
		.find((parameter) => /^charset=/i.test(parameter))
		?.slice('charset='.length)
		.replace(/"/g, '');
	// A cut can split a character; streaming mode leaves its first bytes out instead of showing U+FFFD,
	// which would also hide from the engine's redactor the secret characters before it.
	const options = { stream: truncated };
	try {
		return new TextDecoder(charset || 'utf-8').decode(body, options);
	} catch {
		return new TextDecoder('utf-8').decode(body, options); // unknown charset label
	}
}
