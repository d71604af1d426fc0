import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const TOKEN = 'b7e1c9f2-4d3a-4c55-9e0f-6a2b8d1e3f40';
export const SECRET = 'sEcReT-signing-key-42';
export const HOOK_PATH = `/open-apis/bot/v2/hook/${TOKEN}`;

/** How the fake answers the next requests; the default behaves like Feishu. */
export type Behaviour =
	| 'feishu'
	| 'http-500'
	| 'hang'
	| 'not-json'
	| 'redirect'
	| 'legacy-success'
	| { code: number; msg: string };

export interface FakeFeishu {
	url: string;
	/** The bot's signing secret; undefined means signature verification is off. */
	secret: string | undefined;
	behaviour: Behaviour;
	bodies: Array<Record<string, any>>;
	close(): Promise<void>;
}

/**
 * A Feishu custom-bot webhook on 127.0.0.1 that checks what Feishu checks: the token in the path, and,
 * when a secret is set, a signature recomputed from the received timestamp and a timestamp within an hour.
 */
export async function startFakeFeishu(): Promise<FakeFeishu> {
	const fake = { secret: undefined, behaviour: 'feishu', bodies: [] } as unknown as FakeFeishu;
	const reply = (response: http.ServerResponse, body: unknown, status = 200) => {
		response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
	};
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>;
			fake.bodies.push(body);
			const behaviour = fake.behaviour;
			if (behaviour === 'hang') return;
			if (behaviour === 'http-500')
				return void response
					.writeHead(500, { 'content-type': 'text/plain' })
					.end(`internal error handling ${request.url}`);
			if (behaviour === 'not-json')
				return void response
					.writeHead(200, { 'content-type': 'text/html' })
					.end('<html>login</html>');
			if (behaviour === 'redirect')
				return void response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
			if (behaviour === 'legacy-success')
				return reply(response, { Extra: null, StatusCode: 0, StatusMessage: 'success' });
			if (typeof behaviour === 'object') return reply(response, behaviour);
			if (request.method !== 'POST' || request.url !== HOOK_PATH) {
				return reply(response, {
					code: 19001,
					msg: 'param invalid: incoming webhook access token invalid',
				});
			}
			if (fake.secret !== undefined) {
				const timestamp = Number(body.timestamp);
				const expected = createHmac('sha256', `${body.timestamp}\n${fake.secret}`)
					.update('')
					.digest('base64');
				const fresh =
					Number.isInteger(timestamp) && Math.abs(Date.now() / 1000 - timestamp) <= 3600;
				if (!fresh || body.sign !== expected) {
					return reply(response, {
						code: 19021,
						msg: 'sign match fail or timestamp is not within one hour from current time',
					});
				}
			}
			if (!['text', 'post'].includes(body.msg_type))
				return reply(response, { code: 9499, msg: 'Bad Request' });
			reply(response, { code: 0, data: {}, msg: 'success' });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${HOOK_PATH}`;
	fake.close = async () => {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	};
	return fake;
}
