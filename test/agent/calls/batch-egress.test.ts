// Issue #42: every call of a batch is checked before any runs, egress included: one call to a host the run may
// not reach stops the whole batch, so no call with side effects went out before the refusal.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAgent } from '../../../src/agent/run-agent';
import { createHttpRequestTool } from '../../../src/tools/http-request';
import { classifyAddress } from '../../../src/tools/http-request/address-policy';
import { final, lastUserMessage, modelFor, useScriptedServer } from '../../support/agent';

const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

/** A loopback server on `host` that counts the requests it gets. */
async function countingServer(host: string) {
	const seen: string[] = [];
	const server = createServer((request, response) => {
		seen.push(`${request.method} ${request.url}`);
		request.resume();
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end('{"ok":true}');
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	return {
		seen,
		url: `http://${host}:${(server.address() as AddressInfo).port}`,
		close: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(resolve));
		},
	};
}

describe('a batch whose calls include one the egress rules refuse', () => {
	const server = useScriptedServer();
	let target: Awaited<ReturnType<typeof countingServer>>;
	// The refused host: a canary on another loopback address, which must never be hit.
	let canary: Awaited<ReturnType<typeof countingServer>>;
	beforeEach(async () => {
		target = await countingServer('127.0.0.1');
		canary = await countingServer('127.0.0.2');
	});
	afterEach(async () => {
		await target.close();
		await canary.close();
	});

	async function runBatch(settings: Record<string, unknown>, third: string, prompt: string) {
		server().setScript([
			actions(
				['http_request', { url: `${target.url}/orders/1` }],
				['http_request', { url: `${target.url}/orders`, method: 'POST', body: { id: 2 } }],
				['http_request', { url: third }],
			),
			final('done'),
		]);
		return runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: {
						allow_private_network: true,
						allowed_methods: ['GET', 'POST'],
						...settings,
					},
				},
			},
			prompt,
		});
	}

	it('egress_hosts from_prompt: call 3 goes to a host nobody named; no call ran, the repair turn names call 3', async () => {
		const result = await runBatch(
			{ egress_hosts: 'from_prompt' },
			`${canary.url}/steal`,
			`Check order 1 and file order 2 at ${target.url}.`,
		);
		expect(target.seen).toEqual([]);
		expect(canary.seen).toEqual([]);
		expect(result.trace[0].error).toMatchObject({ type: 'tool_not_allowed' });
		const repair = lastUserMessage(server(), 1);
		expect(repair).toContain('call 3 (http_request): http_request refused: host 127.0.0.2');
		expect(repair).toContain('None of the calls ran');
		expect(result.used_tools.http_request).toBeUndefined();
	});

	it('allowed_domains: call 3 outside the list stops the batch before the POST', async () => {
		const result = await runBatch(
			{ allowed_domains: ['127.0.0.1'] },
			`${canary.url}/other`,
			'Check the orders.',
		);
		expect([target.seen, canary.seen]).toEqual([[], []]);
		expect(lastUserMessage(server(), 1)).toContain(
			'call 3 (http_request): http_request refused: host 127.0.0.2 is not in allowed_domains [127.0.0.1]',
		);
		expect(result.trace[0].calls?.every((call) => call.observation === undefined)).toBe(true);
	});

	it.each([
		['a cloud metadata address', 'http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
		['a URL with a user name and password', 'http://user:pw@127.0.0.2/', 'user name or password'],
		['a cloud metadata name', 'http://metadata.google.internal/', 'cloud metadata service name'],
	])('%s in call 3: nothing ran, the refusal names call 3', async (_case, url, words) => {
		await runBatch({}, url, 'Check the orders.');
		expect([target.seen, canary.seen]).toEqual([[], []]);
		const repair = lastUserMessage(server(), 1);
		expect(repair).toContain('call 3 (http_request): http_request refused');
		expect(repair).toContain(words);
	});

	it('a cloud metadata address in call 2: call 1, a GET the rules allow, did not run either', async () => {
		server().setScript([
			actions(
				['http_request', { url: `${target.url}/orders/1` }],
				['http_request', { url: 'http://169.254.169.254/latest/meta-data/' }],
				['http_request', { url: `${target.url}/orders`, method: 'POST', body: { id: 2 } }],
			),
			final('done'),
		]);
		await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: { allow_private_network: true, allowed_methods: ['GET', 'POST'] },
				},
			},
			prompt: 'Check the orders.',
		});
		expect(target.seen).toEqual([]);
		expect(lastUserMessage(server(), 1)).toContain(
			'call 2 (http_request): http_request refused: 169.254.169.254 is',
		);
	});

	it('a private IP literal in call 3, with private addresses not allowed: nothing ran', async () => {
		// The same tool with its classifier seam, which stands 127.0.0.1 in for a public host: calls 1 and 2
		// would reach the target; 127.0.0.2 (the canary) stays private, as every other address does.
		const publicTarget = (address: string) =>
			address === '127.0.0.1'
				? { ...classifyAddress('8.8.8.8'), address }
				: classifyAddress(address);
		const tool = createHttpRequestTool({ classifyAddress: publicTarget });
		server().setScript([
			actions(
				['public_http', { url: `${target.url}/orders/1` }],
				['public_http', { url: `${target.url}/orders`, method: 'POST', body: { id: 2 } }],
				['public_http', { url: `${canary.url}/inside` }],
			),
			final('done'),
		]);
		await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['public_http'],
				tool_settings: { public_http: { allowed_methods: ['GET', 'POST'] } },
			},
			extraTools: [{ ...tool, name: 'public_http' }],
			prompt: 'Check the orders.',
		});
		expect([target.seen, canary.seen]).toEqual([[], []]);
		expect(lastUserMessage(server(), 1)).toContain(
			'call 3 (public_http): http_request refused: 127.0.0.2 is',
		);
	});

	it('once the refused call is left out, the same calls run', async () => {
		server().setScript([
			actions(
				['http_request', { url: `${target.url}/orders/1` }],
				['http_request', { url: `${canary.url}/steal` }],
			),
			actions(['http_request', { url: `${target.url}/orders/1` }]),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: { allow_private_network: true, allowed_domains: ['127.0.0.1'] },
				},
			},
			prompt: 'Check order 1.',
		});
		expect(result.finish_reason).toBe('final');
		expect(target.seen).toEqual(['GET /orders/1']);
		expect(canary.seen).toEqual([]);
	});
});
