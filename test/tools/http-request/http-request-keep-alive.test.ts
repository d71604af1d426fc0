import { createHttpRequestTool } from '../../../src/tools/http-request';
import {
	context,
	fakeResolver,
	PRIVATE_ALLOWED,
	run,
	sendJson,
	startServer,
	useLoopbackGuard,
} from '../../support/servers/http-servers';

/** Issue #20: http_request keeps connections alive, and the address check still applies to every new one. */
describe('http_request keep-alive', () => {
	useLoopbackGuard();

	it('sends a run’s calls to one host over one connection', async () => {
		const server = await startServer((request, response) =>
			sendJson(response, { path: request.url }),
		);
		for (const page of ['a', 'b', 'c']) {
			expect(await run({ url: `${server.url}/${page}` }, context(PRIVATE_ALLOWED))).toContain(
				`"/${page}"`,
			);
		}
		expect(server.requests).toHaveLength(3);
		expect(server.connections).toBe(1);
	});

	it('never lends a connection made under looser rules: without allow_private_network the same host is refused', async () => {
		const server = await startServer((_, response) => sendJson(response, { ok: true }));
		const tool = createHttpRequestTool({
			resolveHost: fakeResolver({ 'api.test': [['127.0.0.1']] }),
		});
		const url = `http://api.test:${server.port}/data`;
		expect(await run({ url }, context(PRIVATE_ALLOWED), tool)).toContain('"ok":true');
		await expect(run({ url }, context({}), tool)).rejects.toThrow(
			/127\.0\.0\.1.*blocked|blocked.*127\.0\.0\.1|private/i,
		);
		expect(server.requests).toHaveLength(1);
	});
});
