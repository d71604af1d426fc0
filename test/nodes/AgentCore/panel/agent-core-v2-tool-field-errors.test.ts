// Issue #41: a bad value in a version 2 tool field is named by the field the user set, not by Tool Settings (JSON).
import type { INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

describe('version 2: an error in a tool field names that field (issue #41)', () => {
	const server = useScriptedServer();

	async function errorOf(parameters: INodeParameters, typeVersion = 2) {
		server().setScript(final('ok'));
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'hi' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: {
						...(typeVersion === 2 ? { provider: 'openai' } : {}),
						model: { __rl: true, mode: 'id', value: 'scripted-model' },
						...parameters,
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
		return result.errorOf('Agent Core') as (Error & { description?: string }) | undefined;
	}

	it('a URL in Allowed Domains (HTTP Request) is named by that field and its entry, with the fix; the model is not asked', async () => {
		const error = await errorOf({
			allowedTools: ['http_request'],
			httpAllowedDomains: 'api.example.com, https://docs.example.com/guide',
		});
		expect(error?.message).toBe(
			'Allowed Domains (entry 2): "https://docs.example.com/guide" is not a host name: it has a scheme and a path; ' +
				'write the host name only, e.g. docs.example.com',
		);
		expect(error?.description).toBe('Correct the value of Allowed Domains.');
		expect(error?.message).not.toMatch(/tool_settings|Tool Settings \(JSON\)/);
		expect(server().requests).toHaveLength(0);
	});

	it.each([
		[
			'HTTP Request Settings → Max Redirects',
			{ allowedTools: ['http_request'], httpRequestSettings: { maxRedirects: '={{ 99 }}' } },
		],
		[
			'Redis Context Settings → TTL (Seconds)',
			{ allowedTools: ['redis_context'], redisContextSettings: { ttlSeconds: '={{ -5 }}' } },
		],
		[
			'Feishu / Lark Bot Settings → Timeout (Milliseconds)',
			{ allowedTools: ['feishu_bot'], feishuBotSettings: { timeoutMs: '={{ 0 }}' } },
		],
	])('a value out of bounds in a per-tool field is named "%s"', async (name, parameters) => {
		const error = await errorOf(parameters);
		expect(error?.message.startsWith(`${name}: `)).toBe(true);
		expect(error?.description).toBe(`Correct the value of ${name}.`);
	});

	it('a bad value set in Tool Settings (JSON) is still named there, and a JSON key that wins hides its field', async () => {
		const fromJson = await errorOf({
			allowedTools: ['http_request'],
			httpAllowedDomains: 'https://ignored.example.com/',
			options: {
				toolSettingsJson: '{"http_request":{"allowed_domains":["https://a.example.com/"]}}',
			},
		});
		expect(fromJson?.message).toMatch(
			/^tool_settings\.http_request\.allowed_domains\[0\]: "https:\/\/a\.example\.com\/"/,
		);
		expect(fromJson?.description).toBe(
			'Correct the value of Options → Tool Settings (JSON) → http_request.',
		);
		expect(fromJson?.message).not.toMatch(/ignored/);
	});

	it('good field values run as before', async () => {
		expect(
			await errorOf({
				allowedTools: ['http_request'],
				httpAllowedDomains: 'api.example.com, *.example.org',
			}),
		).toBeUndefined();
	});

	it('version 1 nodes, which have no tool fields, keep their errors word for word', async () => {
		const error = await errorOf(
			{
				allowedTools: ['http_request'],
				httpAllowedDomains: 'https://ignored.example.com/',
				toolSettingsJson: '{"http_request":{"allowed_domains":["https://a.example.com/"]}}',
			},
			1,
		);
		expect(error?.message).toMatch(
			/^tool_settings\.http_request\.allowed_domains\[0\]: "https:\/\/a\./,
		);
		expect(error?.description).toBe('Correct the value of Tool Settings (JSON) → http_request.');
	});
});
