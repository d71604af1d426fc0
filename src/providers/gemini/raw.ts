/** A fetch for @google/genai that keeps what its Gemini API converter drops from a reply: the candidate's `finishMessage`. */
import { bodyWithFiles, type FileMarkers } from '../file-body';

/** Where Node keeps undici's global dispatcher (the key @google/genai itself uses). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
	dispatch(options: Record<string, unknown>, handler: unknown): boolean;
}

/**
 * Node's dispatcher without undici's header and body timeouts, as @google/genai sets up for itself when no
 * fetch is given: a long thinking call is bounded by the engine's signal (single_call_timeout), not by undici.
 */
const untimedDispatcher: Dispatcher = {
	dispatch(options, handler) {
		let global = (globalThis as Record<symbol, Dispatcher | undefined>)[GLOBAL_DISPATCHER];
		if (!global) {
			// Node creates its dispatcher lazily; any use of fetch's classes does it.
			new Headers();
			global = (globalThis as Record<symbol, Dispatcher | undefined>)[GLOBAL_DISPATCHER];
		}
		if (!global) throw new Error("Node's fetch dispatcher is not available");
		return global.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler);
	},
};

/** What the raw body said that the SDK's response leaves out. */
export interface RawReplyNotes {
	finishMessage?: string;
	/** Settles once a streamed body's copy has been read to its end (or failed). */
	read?: Promise<void>;
}

/**
 * A fetch for one call that notes the first candidate's `finishMessage`, which @google/genai's Gemini API
 * converter does not copy (Vertex Model Armor's "The response violated Responsible AI Safety settings …",
 * realworld case `pyd:test_google/test_google_model_armor_response_template_real_block#0`): a 200 JSON
 * answer is read once more from a clone; an event stream is teed, and its copy read as the events pass.
 */
export function fetchKeepingFinishMessage(
	notes: RawReplyNotes,
	markers?: FileMarkers,
): typeof fetch {
	return async (input, init) => {
		const response = await fetch(input, {
			...init,
			...withFileBody(init, markers),
			dispatcher: untimedDispatcher,
		} as unknown as RequestInit);
		const type = response.headers.get('content-type') ?? '';
		if (!response.ok || !response.body) return response;
		if (/json/i.test(type)) notes.finishMessage = finishMessageOf(await response.clone().text());
		if (/event-stream/i.test(type)) {
			const [forSdk, copy] = response.body.tee();
			notes.read = readEventStream(copy, notes);
			return new Response(forSdk, {
				status: response.status,
				statusText: response.statusText,
				headers: response.headers,
			});
		}
		return response;
	};
}

/**
 * The SDK's JSON text with each file marker swapped for a stream of the file's base64 (../file-body.ts), sent with
 * its exact Content-Length; nothing when the call holds no files.
 */
function withFileBody(init: RequestInit | undefined, markers?: FileMarkers): RequestInit {
	if (!markers?.files.length) return {};
	// Never send the markers themselves as a file's data: an SDK that stops writing its body as text fails loudly.
	if (typeof init?.body !== 'string')
		throw new Error(
			'@google/genai did not write its request body as JSON text; the files cannot be sent',
		);
	const { body, length } = bodyWithFiles(init.body, markers);
	const headers = new Headers(init.headers);
	headers.set('content-length', String(length));
	return { body, headers, duplex: 'half' } as RequestInit;
}

/** Reads the copy of an event stream, noting the last `finishMessage` of its `data:` events; never rejects. */
async function readEventStream(
	stream: ReadableStream<Uint8Array>,
	notes: RawReplyNotes,
): Promise<void> {
	const decoder = new TextDecoder();
	let pending = '';
	const take = (line: string) => {
		const message = /^data:/.test(line) ? finishMessageOf(line.slice(5)) : undefined;
		if (message !== undefined) notes.finishMessage = message;
	};
	try {
		for await (const bytes of stream as unknown as AsyncIterable<Uint8Array>) {
			pending += decoder.decode(bytes, { stream: true });
			const lines = pending.split(/\r?\n/);
			pending = lines.pop() ?? '';
			// Only lines that could carry it are parsed: most events have no finishMessage.
			for (const line of lines) if (line.includes('"finishMessage"')) take(line);
		}
		if (pending.includes('"finishMessage"')) take(pending);
	} catch {
		// The SDK's side reports the failure; this copy only adds a message when it can.
	}
}

function finishMessageOf(body: string): string | undefined {
	try {
		const message = (JSON.parse(body) as { candidates?: Array<{ finishMessage?: unknown }> } | null)
			?.candidates?.[0]?.finishMessage;
		return typeof message === 'string' && message.trim() !== '' ? message : undefined;
	} catch {
		return undefined;
	}
}
