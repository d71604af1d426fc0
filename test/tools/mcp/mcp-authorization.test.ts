// An MCP server that answers 401 or 403 (issue #38): the error names the server, the header to set, and OAuth when the server asks for it.
import { runAgent } from '../../../src/agent/run-agent';
import { createChatModel } from '../../../src/providers/create-model';
import { McpServerError } from '../../../src/tools/mcp';
import { action, final, useScriptedServer } from '../../support/agent';
import { useLoopbackGuard } from '../../support/servers/http-servers';
import { startWireServer, type ResumingServer } from '../../support/servers/mcp-resuming-servers';

useLoopbackGuard();
const scripted = useScriptedServer();
const model = () =>
	createChatModel({
		provider: 'openai',
		apiKey: 'sk-authorization-test-key-0123456789',
		baseUrl: scripted().openaiBaseUrl,
		maxRetries: 0,
	});
const TOKEN = 'Bearer mcp-authorization-test-token-777';
const OAUTH = {
	'www-authenticate':
		'Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", error="invalid_token"',
};

let server: ResumingServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

/** A run whose second mcp_servers entry is the refusing server; it must fail before the first model call. */
async function refusal(
	status: { code: number; headers?: Record<string, string> },
	headers?: Record<string, string>,
): Promise<McpServerError> {
	server = await startWireServer({ status });
	const servers = [
		{ name: 'unused', url: 'https://mcp.example.com/mcp' },
		{
			name: 'locked',
			url: server.url,
			allow_private_network: true,
			...(headers ? { headers } : {}),
		},
	];
	const error = await runAgent({
		model: model(),
		config: { model: 'gpt-4o-mini', allowed_tools: ['locked.wait'], mcp_servers: servers },
		prompt: 'Hi.',
	}).catch((caught: unknown) => caught);
	expect(scripted().requests).toHaveLength(0);
	expect(error).toBeInstanceOf(McpServerError);
	return error as McpServerError;
}

describe('a server that wants a token', () => {
	it('says a 401 wants a token and names mcp_servers[1].headers.Authorization, not the URL', async () => {
		const error = await refusal({ code: 401 });
		expect(error.message).toMatch(
			/^MCP server "locked" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) answered HTTP 401 Unauthorized: it wants a token, and none is configured$/,
		);
		expect(error.fix).toBe(
			'Set mcp_servers[1].headers.Authorization to "Bearer <token>", with a token from its operator.',
		);
		expect(error.fix).not.toMatch(/url/);
	});

	it('says a server whose 401 names OAuth resource metadata uses OAuth, which Agent Core does not perform', async () => {
		const error = await refusal({ code: 401, headers: OAUTH });
		expect(error.message).toContain(
			'answered HTTP 401 Unauthorized: it wants a token, and none is configured; its WWW-Authenticate says it uses OAuth (resource metadata: http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp), which Agent Core does not perform: a bearer token header is the way',
		);
		expect(error.fix).toBe(
			'Set mcp_servers[1].headers.Authorization to "Bearer <token>", with a token from its OAuth authorization server (or its operator).',
		);
	});

	it('says a 401 did not accept the configured token, naming its header as written and never its value', async () => {
		const error = await refusal({ code: 401, headers: OAUTH }, { authorization: TOKEN });
		expect(error.message).toContain(
			'answered HTTP 401 Unauthorized: it did not accept what mcp_servers[1].headers.authorization sent (a wrong or expired token?)',
		);
		expect(error.fix).toContain('Set mcp_servers[1].headers.authorization to "Bearer <token>"');
		expect(`${error.message} ${error.fix}`).not.toContain(TOKEN);
	});

	it('says a 403 refused access for the token given, with the scope the server asks for', async () => {
		const error = await refusal(
			{
				code: 403,
				headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="tools:write"' },
			},
			{ Authorization: TOKEN },
		);
		expect(error.message).toMatch(
			/answered HTTP 403 Forbidden: it refused access for the token in mcp_servers\[1\]\.headers\.Authorization \(insufficient_scope: it asks for the scope "tools:write"\); its WWW-Authenticate says it uses OAuth/,
		);
		expect(error.fix).toBe(
			"Put a token with the rights the server asks for in mcp_servers[1].headers.Authorization, or ask the server's operator for access.",
		);
	});

	it('keeps what a hostile WWW-Authenticate says short and free of control characters', async () => {
		const error = await refusal({
			code: 401,
			headers: { 'www-authenticate': `Bearer resource_metadata="http://x/${'a'.repeat(5000)}\t"` },
		});
		expect(error.message).toMatch(/resource metadata: http:\/\/x\/a{100,}…\)/);
		expect(error.message.length).toBeLessThan(600);
		expect(error.message).not.toMatch(/[\u0000-\u001f]/);
	});
});

describe('a token refused during a run', () => {
	it('tells the model the server wants a token (HTTP 401) when a call is refused after a good start', async () => {
		server = await startWireServer({ callStatus: { code: 401 } });
		scripted().setScript([action('expiring.wait', {}), final('done')]);
		const result = await runAgent({
			model: model(),
			config: {
				model: 'gpt-4o-mini',
				allowed_tools: ['expiring.wait'],
				mcp_servers: [{ name: 'expiring', url: server.url, allow_private_network: true }],
			},
			prompt: 'Hi.',
		});
		expect(result.trace[0].error!.message).toBe(
			'expiring.wait failed: the MCP server answered HTTP 401 Unauthorized: it wants a token, and none is configured',
		);
	});
});
