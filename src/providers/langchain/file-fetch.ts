/**
 * Files through a ChatOpenAI sub-node without their base64 text in memory (issue #40). n8n's OpenAI Chat Model
 * hands Agent Core a ChatOpenAI object; left as it is, a 20 MB PDF becomes our base64, LangChain's data URL,
 * openai-node's JSON text and undici's bytes of it (bench/files-memory.js measured 6.9 × the file in peak RSS).
 *
 * Instead the messages carry a marker where each file's base64 goes (../file-body.ts), and the class's openai-node
 * client sends through a fetch of ours, which swaps the markers for the stream that encodes the file chunk by
 * chunk, with its exact Content-Length. The client is built from the class's `clientConfig`
 * (@langchain/openai chat_models/base.js `_getClientOptions`: `new OpenAI({...this.clientConfig, …})`, kept in
 * `this.client`); since @langchain/openai 1.x, ChatOpenAI calls through its `completions` and `responses`
 * delegates, each with its own. Our fetch goes into each `clientConfig`, wrapping whatever fetch was there
 * (n8n's proxy dispatcher rides in `fetchOptions`, which openai-node passes to the fetch untouched).
 *
 * The hook counts only once it is seen to hold: each rebuilt client's `fetch` (openai-node keeps the given
 * fetch as `client.fetch`) is ours. A class where it does not hold gets the files' base64 as before. A call whose
 * markers never reached our fetch fails loudly; text that only looks like a marker (a user wrote it) is sent as text.
 */
import { bodyWithFiles, type FileMarkers } from '../file-body';
import { isOpenAiClass } from './class';

/** The markers of the bodies being sent, by their nonce (one per attempt, removed when it settles). */
const pending = new Map<string, FileMarkers>();
const NONCE = /agent-core-file-[0-9a-f-]{36}/g;
/** The nonces whose markers our fetch swapped for their files. */
const swapped = new Set<string>();
/** The objects whose clients already send through our fetch. */
const hooked = new WeakSet<object>();

interface ClientHolder {
	clientConfig: Record<string, unknown>;
	client?: { fetch?: unknown };
	_getClientOptions(options?: unknown): unknown;
}

function isClientHolder(value: unknown): value is ClientHolder {
	const holder = value as Partial<ClientHolder> | null;
	return (
		typeof holder === 'object' &&
		holder !== null &&
		typeof holder.clientConfig === 'object' &&
		holder.clientConfig !== null &&
		typeof holder._getClientOptions === 'function'
	);
}

/**
 * Whether `model`'s requests can carry file markers: a ChatOpenAI whose clients (its own and its delegates')
 * are now built with our fetch. False leaves the class as it was found, apart from clients it rebuilds alike.
 */
export function streamsFileBodies(model: object): boolean {
	if (hooked.has(model)) return true;
	if (!isOpenAiClass(model)) return false;
	const { completions, responses } = model as { completions?: unknown; responses?: unknown };
	if (!isClientHolder(model)) return false;
	const holders = [model, completions, responses].filter(isClientHolder);
	for (const holder of holders) {
		const fetch = fileFetch(holder.clientConfig.fetch);
		holder.clientConfig = { ...holder.clientConfig, fetch };
		holder.client = undefined;
		try {
			holder._getClientOptions({});
		} catch {
			return false;
		}
		if ((holder as ClientHolder).client?.fetch !== fetch) return false;
	}
	hooked.add(model);
	return true;
}

/** Runs `send` with `markers` known to our fetch; a call whose markers never reached it fails loudly. */
export async function withFileMarkers<T>(markers: FileMarkers, send: () => Promise<T>): Promise<T> {
	if (!markers.files.length) return send();
	pending.set(markers.nonce, markers);
	try {
		const reply = await send();
		if (!swapped.delete(markers.nonce))
			throw new Error(
				"the chat model's request did not go through Agent Core's file stream, so its files were not sent; " +
					'turn off the file options, or report this class and version',
			);
		return reply;
	} finally {
		pending.delete(markers.nonce);
		swapped.delete(markers.nonce);
	}
}

/** A fetch that sends a body holding file markers as the stream of its files (see the file comment). */
function fileFetch(inner: unknown): typeof fetch {
	const send = typeof inner === 'function' ? (inner as typeof fetch) : undefined;
	return (input, init) => {
		const body = init?.body;
		const markers = typeof body === 'string' ? markersIn(body) : undefined;
		if (markers === undefined) return (send ?? fetch)(input, init);
		const { nonce } = markers;
		swapped.add(nonce);
		const streamed = bodyWithFiles(body, markers);
		const headers = new Headers(init!.headers);
		headers.set('content-length', String(streamed.length));
		const request = { ...init, body: streamed.body, headers, duplex: 'half' } as RequestInit;
		return (send ?? fetch)(input, request);
	};
}

/** The markers of a call of ours that `body` holds; text that merely looks like a marker (a user wrote it) is text. */
function markersIn(body: string): FileMarkers | undefined {
	for (const [nonce] of body.matchAll(NONCE)) {
		const markers = pending.get(nonce);
		if (markers) return markers;
	}
	return undefined;
}
