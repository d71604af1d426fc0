import * as http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';

const SECRET = 'sk-span-9Tq4Wm2Lx8Zr';

/** Issue #19 through the CLI: OTEL_EXPORTER_OTLP_ENDPOINT turns the export on, and the spans leave before the process ends. */
describe('agent-core run with OpenTelemetry', () => {
	const server = useScriptedServer();
	let folder: string;
	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'agent-core-otel-'));
		writeFileSync(
			join(folder, 'config.json'),
			JSON.stringify({ model: 'm', allowed_tools: ['json_transform'] }),
		);
	});
	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it('exports the run’s four spans to a local OTLP/HTTP receiver before it exits, without the API key', async () => {
		const bodies: any[] = [];
		const receiver = http.createServer((request, response) => {
			let body = '';
			request.on('data', (chunk) => (body += chunk));
			request.on('end', () => {
				if (request.method === 'POST' && request.url === '/v1/traces')
					bodies.push(JSON.parse(body));
				response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
			});
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		try {
			server().setScript([
				action('json_transform', { data: [1, 2, 3], expression: 'length(@)' }),
				final('three'),
			]);
			const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
			const finished = await runCli(
				[
					'run',
					'--config',
					join(folder, 'config.json'),
					'--prompt',
					'count',
					'--base-url',
					server().openaiBaseUrl,
					'--api-key',
					SECRET,
				],
				{ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'agents-of-acme' },
			);
			expect(finished).toMatchObject({ code: 0, stderr: '' });
			const spans = bodies.flatMap((body) =>
				body.resourceSpans.flatMap((resource: any) =>
					resource.scopeSpans.flatMap((scope: any) => scope.spans),
				),
			);
			expect(spans.map((span: any) => span.name).sort()).toEqual([
				'chat m',
				'chat m',
				'execute_tool json_transform',
				'invoke_agent Agent Core',
			]);
			const run = spans.find((span: any) => span.name.startsWith('invoke_agent'));
			expect(
				spans
					.filter((span: any) => span !== run)
					.every((span: any) => span.parentSpanId === run.spanId),
			).toBe(true);
			expect(JSON.stringify(bodies)).toContain('agents-of-acme');
			expect(JSON.stringify(bodies)).not.toContain(SECRET);
		} finally {
			receiver.closeAllConnections();
			await new Promise((resolve) => receiver.close(resolve));
		}
	});

	it('exports nothing and needs nothing without the variable', async () => {
		server().setScript(final('ok'));
		const finished = await runCli([
			'run',
			'--config',
			join(folder, 'config.json'),
			'--prompt',
			'hi',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
		]);
		expect(finished).toMatchObject({ code: 0, stderr: '' });
	});
});
