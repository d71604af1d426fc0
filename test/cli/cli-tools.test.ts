import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import {
	deleteKeysByPrefix,
	getTestRedis,
	uniqueKeyPrefix,
	type TestRedis,
} from '../support/redis';

/** A local HTTP target that records what reached it. */
async function startTarget(
	handler: (request: IncomingMessage, body: string) => { status?: number; json: unknown },
) {
	const hits: Array<{ url?: string; headers: IncomingMessage['headers']; body: string }> = [];
	const server: Server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk) => (body += chunk));
		request.on('end', () => {
			hits.push({ url: request.url, headers: request.headers, body });
			const reply = handler(request, body);
			response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
			response.end(JSON.stringify(reply.json));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		hits,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

describe('agent-core run uses every built-in tool through tool_settings', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-cli-tools-'));
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	async function runWithConfig(config: Record<string, unknown>, extra: string[] = []) {
		const path = join(folder, `config-${Date.now()}.json`);
		writeFileSync(path, JSON.stringify({ model: 'm', ...config }));
		const run = await runCli([
			'run',
			'--config',
			path,
			'--prompt',
			'go',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			...extra,
		]);
		expect(run.stderr).toBe('');
		return JSON.parse(run.stdout);
	}

	it('http_request with allowed domains, private network allowed and a fixed header', async () => {
		const target = await startTarget(() => ({ json: { stock: 12 } }));
		try {
			server().setScript([
				action('http_request', { url: `${target.url}/stock?sku=7` }),
				final('12 in stock'),
			]);
			const output = await runWithConfig({
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: {
						allowed_domains: ['127.0.0.1'],
						allow_private_network: true,
						allow_insecure_headers: true,
						headers: { 'X-Api-Token': 'cli-secret-token' },
					},
				},
			});
			expect(output.finish_reason).toBe('final');
			expect(output.trace[0].observation).toContain('HTTP 200');
			expect(output.trace[0].observation).toContain('{"stock":12}');
			expect(target.hits[0].headers['x-api-token']).toBe('cli-secret-token');
			expect(JSON.stringify(output)).not.toContain('cli-secret-token');
		} finally {
			await target.close();
		}
	});

	it('json_transform', async () => {
		server().setScript([
			action('json_transform', { data: { a: [1, 2] }, expression: 'length(a)' }),
			final('2'),
		]);
		const output = await runWithConfig({ allowed_tools: ['json_transform'] });
		expect(output.trace[0].observation).toBe('2');
	});

	describe('redis_context', () => {
		let redis: TestRedis;
		let client: Redis;
		const prefix = uniqueKeyPrefix('cli-kv');
		beforeAll(async () => {
			redis = await getTestRedis();
			client = new Redis(redis.url);
		});
		afterAll(async () => {
			await deleteKeysByPrefix(client, prefix);
			await deleteKeysByPrefix(client, 'agent_core:ctx:cli-kv-session');
			client.disconnect();
			await redis.stop();
		});

		it('keeps a value for the --session across runs', async () => {
			const config = {
				allowed_tools: ['redis_context'],
				tool_settings: { redis_context: { redis_url: redis.url, key_prefix: prefix } },
			};
			const session = [
				'--session',
				'cli-kv-session',
				'--context',
				'redis',
				'--redis-url',
				redis.url,
			];
			server().setScript([
				action('redis_context', { operation: 'set', key: 'city', value: 'Oslo' }),
				final('saved'),
			]);
			await runWithConfig(config, session);
			server().setScript([
				action('redis_context', { operation: 'get', key: 'city' }),
				final('Oslo'),
			]);
			const output = await runWithConfig(config, session);
			expect(output.trace[0].observation).toBe('Oslo');
		});
	});

	it('feishu_bot posts to the configured webhook, signed, without writing the URL or secret anywhere', async () => {
		const feishu = await startTarget(() => ({ json: { code: 0, msg: 'success' } }));
		try {
			server().setScript([action('feishu_bot', { text: 'Deploy finished' }), final('sent')]);
			const output = await runWithConfig({
				allowed_tools: ['feishu_bot'],
				tool_settings: {
					feishu_bot: {
						webhook_url: `${feishu.url}/open-apis/bot/v2/hook/hook-token-123`,
						signing_secret: 'feishu-signing-secret',
					},
				},
			});
			expect(output.finish_reason).toBe('final');
			const sent = JSON.parse(feishu.hits[0].body);
			expect(sent).toMatchObject({
				msg_type: 'text',
				content: { text: 'Deploy finished' },
				sign: expect.any(String),
				timestamp: expect.any(String),
			});
			const written = JSON.stringify(output);
			expect(written).not.toContain('hook-token-123');
			expect(written).not.toContain('feishu-signing-secret');
		} finally {
			await feishu.close();
		}
	});
});
