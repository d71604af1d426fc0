'use strict';
/**
 * A bounded HTTP load client for loopback webhooks: a fixed number of POSTs with a fixed number in flight,
 * over one keep-alive agent per phase, each answer checked. Stops early only at its time limit.
 */
const http = require('node:http');

/**
 * @param {object} options
 * @param {string} options.url              http://127.0.0.1:PORT/webhook/PATH (loopback only)
 * @param {number} options.requests         how many requests in all
 * @param {number} options.concurrency      how many in flight at once
 * @param {(index: number) => object} options.body   the JSON body of request `index`
 * @param {(index: number, status: number, body: unknown, text: string, latencyMs: number) => string | undefined} options.check
 *        undefined when the answer is right, else what is wrong with it
 * @param {number} [options.timeLimitMs]    no new request starts after this (default 180 s)
 * @param {number} [options.requestTimeoutMs]  one request's limit (default 60 s)
 * @returns {Promise<{ latenciesMs: number[], ok: number, errors: number, notStarted: number, wallMs: number, firstErrors: string[] }>}
 */
async function runLoad({
	url,
	requests,
	concurrency,
	body,
	check,
	timeLimitMs = 180000,
	requestTimeoutMs = 60000,
}) {
	const target = new URL(url);
	if (target.hostname !== '127.0.0.1')
		throw new Error(`the load client only sends to 127.0.0.1, not ${target.hostname}`);
	const agent = new http.Agent({
		keepAlive: true,
		maxSockets: concurrency,
		maxFreeSockets: concurrency,
	});
	const latenciesMs = [];
	const firstErrors = [];
	let ok = 0;
	let errors = 0;
	let next = 0;
	const started = performance.now();
	const deadline = started + timeLimitMs;

	const noteError = (index, problem) => {
		errors++;
		if (firstErrors.length < 5) firstErrors.push(`#${index}: ${problem}`);
	};

	async function worker() {
		for (;;) {
			if (next >= requests || performance.now() > deadline) return;
			const index = next++;
			const payload = JSON.stringify(body(index));
			const sent = performance.now();
			try {
				const { status, text } = await post(agent, target, payload, requestTimeoutMs);
				const latencyMs = performance.now() - sent;
				latenciesMs.push(latencyMs);
				let parsed;
				try {
					parsed = JSON.parse(text);
				} catch {
					parsed = undefined;
				}
				const problem = check(index, status, parsed, text, latencyMs);
				if (problem) noteError(index, problem);
				else ok++;
			} catch (error) {
				latenciesMs.push(performance.now() - sent);
				noteError(index, error.message);
			}
		}
	}

	try {
		await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, worker));
	} finally {
		agent.destroy();
	}
	return {
		latenciesMs,
		ok,
		errors,
		notStarted: requests - next,
		wallMs: performance.now() - started,
		firstErrors,
	};
}

function post(agent, target, payload, timeoutMs) {
	return new Promise((resolve, reject) => {
		const request = http.request(
			{
				agent,
				host: target.hostname,
				port: target.port,
				path: target.pathname,
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(payload),
				},
				timeout: timeoutMs,
			},
			(response) => {
				const chunks = [];
				response.on('data', (chunk) => chunks.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode ?? 0,
						text: Buffer.concat(chunks).toString('utf8'),
					}),
				);
				response.on('error', reject);
			},
		);
		request.once('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
		request.once('error', reject);
		request.end(payload);
	});
}

/** The value below which `fraction` of the sorted samples lie (nearest rank). */
function percentile(sorted, fraction) {
	if (sorted.length === 0) return NaN;
	const rank = Math.ceil(fraction * sorted.length);
	return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

module.exports = { runLoad, percentile };
