/** The openai SDK, loaded when the first client is made (see loadOnce), and its clients, one per key and address. */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import { loadOnce } from '../../core/load-once';

export const openAiSdk = loadOnce(() => (require('openai') as typeof import('openai')).default);

/** Clients kept at once: a process rarely talks to more keys and addresses; the least recently used goes first. */
const MAX_SHARED_CLIENTS = 32;
const clients = new Map<string, OpenAI>();
/** What the SDK reads from the environment when a client is made: a change makes another client, as before. */
const SDK_ENVIRONMENT = [
	'OPENAI_ADMIN_KEY',
	'OPENAI_API_KEY',
	'OPENAI_BASE_URL',
	'OPENAI_CUSTOM_HEADERS',
	'OPENAI_LOG',
	'OPENAI_ORG_ID',
	'OPENAI_PROJECT_ID',
	'OPENAI_WEBHOOK_SECRET',
];

/**
 * The SDK client for an API key and base URL, made once per process and shared by every model object and run
 * that uses them (issue #49: building one, with its two dozen resource objects, was about 0.6 ms of n8n's main
 * thread per item). A client holds only its options — the key, the address, no retries of its own, no timeout
 * of its own — and takes each call's abort signal per request, so sharing it changes nothing a run sees.
 * Keyed by a hash of both and of the SDK's environment variables, as the per-credential limiter is, not by the key.
 */
export function sharedOpenAiClient(apiKey: string, baseUrl: string | undefined): OpenAI {
	const environment = SDK_ENVIRONMENT.map((name) => process.env[name] ?? '').join('\n');
	const key = createHash('sha256')
		.update(`${baseUrl || ''}\n${apiKey}\n${environment}`)
		.digest('hex');
	let client = clients.get(key);
	if (client) {
		clients.delete(key);
	} else {
		client = new (openAiSdk())({
			apiKey,
			baseURL: baseUrl || undefined,
			// Retries are ours (../retry.ts): the SDK's retry sleep ignores the abort signal.
			maxRetries: 0,
			// The engine enforces single_call_timeout itself through the abort signal.
			timeout: 24 * 3600 * 1000,
		});
		while (clients.size >= MAX_SHARED_CLIENTS) clients.delete(clients.keys().next().value!);
	}
	clients.set(key, client);
	return client;
}
