import http from 'node:http';
import { checkHop, type ConnectionPolicy } from './connection-policy';
import type { Deadline } from './deadline';
import { redirectedHop, type Hop } from './hop';
import { HttpRequestError } from './error';
import type { HttpRequestSettings } from './settings';
import { readBody } from './body';
import { sendHop } from './send';

/** What the last hop answered, as read (body decoded if compressed, possibly cut at max_response_bytes). */
export interface FetchedResponse {
	status: number;
	statusText: string;
	contentType?: string;
	body: Buffer;
	truncated: boolean;
	/** The content-encoding the body was decoded from (`gzip`, `br`, `deflate`). */
	decodedFrom?: string;
	/** Why the body was not decoded (`unsupported content-encoding zstd`); it is then not shown. */
	undecodable?: string;
	finalUrl: string;
	redirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends `first` and follows redirects up to `max_redirects`, checking every hop against the policy before
 * it connects and again at connect time, so a redirect can never reach what a direct request could not.
 */
export async function fetchFollowingRedirects(
	first: Hop,
	settings: HttpRequestSettings,
	policy: ConnectionPolicy,
	deadline: Deadline,
): Promise<FetchedResponse> {
	let hop = first;
	let redirects = 0;
	for (;;) {
		if (deadline.stopped) throw deadline.error();
		let response: http.IncomingMessage;
		try {
			checkHop(hop, settings, policy);
			response = await sendHop(hop, settings, policy, deadline);
		} catch (error) {
			if (
				redirects > 0 &&
				error instanceof HttpRequestError &&
				error.message.startsWith('http_request refused')
			) {
				error.message += ` (this url was reached by following a redirect from ${first.url.href})`;
			}
			throw error;
		}
		const status = response.statusCode ?? 0;
		const location = response.headers.location;
		if (!REDIRECT_STATUSES.has(status) || !location) {
			const read = await readBody(response, settings.maxResponseBytes, deadline);
			const contentType = response.headers['content-type'];
			const statusText = response.statusMessage || http.STATUS_CODES[status] || '';
			return { status, statusText, contentType, ...read, finalUrl: hop.url.href, redirects };
		}
		response.destroy();
		if (redirects >= settings.maxRedirects) {
			throw new HttpRequestError(
				`http_request stopped: more than ${settings.maxRedirects} redirects (max_redirects); ` +
					`the last answer was ${status} to ${location}. Request the final URL directly or use another endpoint`,
			);
		}
		hop = redirectedHop(hop, status, location);
		redirects += 1;
	}
}
