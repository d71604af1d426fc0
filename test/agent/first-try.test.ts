// Found and working on first try (issue #28): the node creator finds both nodes, the model credentials add nothing to n8n's panels, and their Test buttons still send the key.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ICredentialType, INodeType } from 'n8n-workflow';
import { AgentCoreGeminiApi } from '../../credentials/AgentCoreGeminiApi.credentials';
import { AgentCoreOpenAiApi } from '../../credentials/AgentCoreOpenAiApi.credentials';
import { runWorkflow } from '../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';

const codexOf = (node: string) =>
	JSON.parse(
		readFileSync(path.join(__dirname, '..', '..', 'nodes', node, `${node}.node.json`), 'utf8'),
	);

/**
 * n8n's node creator drops every node of the AI category whose `subcategories.AI` lacks "Root Nodes" from a
 * search opened from a node's "+" or from the canvas outside the AI panel (filterOutAiNodes in
 * packages/frontend/editor-ui/src/features/shared/nodeCreator/composables/useViewStacks.ts), and lists in the
 * AI panel those filed under "Agents" (AIView in .../nodeCreator/views/viewsData.ts). n8n's AI Agent has
 * ["Agents", "Root Nodes"] (packages/@n8n/nodes-langchain/nodes/agents/Agent/Agent.node.ts).
 */
function survivesFilterOutAiNodes(codex: {
	categories?: string[];
	subcategories?: Record<string, string[]>;
}): boolean {
	if (!codex.categories?.includes('AI')) return true;
	return codex.subcategories?.AI?.includes('Root Nodes') === true;
}

describe('both nodes are found by the node creator’s search for "agent"', () => {
	it.each(['AgentCore', 'AgentContext'])(
		'%s is an AI root node filed under Agents, not a sub-node section',
		(node) => {
			const codex = codexOf(node);
			expect(codex.categories).toContain('AI');
			expect(codex.subcategories.AI).toEqual(['Agents', 'Root Nodes']);
			expect(survivesFilterOutAiNodes(codex)).toBe(true);
		},
	);

	it('files Agent Context as a root node, not among the memory sub-nodes', () => {
		expect(codexOf('AgentContext').subcategories.AI).not.toContain('Memory');
	});
});

/**
 * The Test button as n8n's CredentialsTester runs it (packages/cli/src/services/credentials-tester.service.ts):
 * a node whose one property routes `test.request`, run by n8n-core's RoutingNode with the decrypted credential.
 * `authenticate` would be applied by the credentials helper; these credentials have none, so the request
 * itself must carry the key.
 */
function credentialTestNode(credential: ICredentialType): INodeType {
	return {
		description: {
			displayName: 'Credential Test',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: 'The node n8n builds for a credential test',
			defaults: { name: 'Credential Test' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credential.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: credential.test!.request },
				},
			],
		},
	} as unknown as INodeType;
}

describe('the model credentials add no Custom API Call or HTTP domain field, and their Test buttons still send the key', () => {
	let server: http.Server;
	let baseUrl: string;
	const received: Array<{ url: string; headers: http.IncomingHttpHeaders }> = [];
	beforeAll(async () => {
		server = http.createServer((request, response) => {
			received.push({ url: request.url ?? '', headers: request.headers });
			const authorised =
				request.headers.authorization === 'Bearer sk-right' ||
				request.headers['x-goog-api-key'] === 'gemini-right';
			response.writeHead(authorised ? 200 : 401, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify(
					authorised ? { data: [], models: [] } : { error: { message: 'invalid key' } },
				),
			);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
	beforeEach(() => (received.length = 0));

	// n8n adds "Allowed HTTP Request Domains" to a credential, and "Custom API Call" to the operations of every
	// node using it, exactly when the credential declares `authenticate` (shouldAddDomainRestrictions and
	// supportsProxyAuth in packages/cli/src/load-nodes-and-credentials.ts).
	it.each<ICredentialType>([new AgentCoreOpenAiApi(), new AgentCoreGeminiApi()])(
		'$name declares no authenticate block, so n8n injects neither',
		(credential) => {
			expect(credential.authenticate).toBeUndefined();
			expect(credential.genericAuth).toBeUndefined();
			expect(credential.extends).toBeUndefined();
			expect(credential.properties.map((property) => property.name)).not.toContain(
				'allowedHttpRequestDomains',
			);
		},
	);

	async function testButton(credential: ICredentialType, data: Record<string, unknown>) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}]),
				createNode({
					name: 'Credential Test',
					type: 'credentialTest',
					settings: { credentials: { [credential.name]: { id: '1', name: 'Tested' } } },
				}),
			],
			connections: connectInSequence('Input', 'Credential Test'),
			nodeTypes: { credentialTest: credentialTestNode(credential) },
			credentials: { [credential.name]: data },
		});
		return result.errorOf('Credential Test');
	}

	it('the OpenAI-compatible test lists /models with the key as a Bearer token, and fails on a refused key', async () => {
		const credential = new AgentCoreOpenAiApi();
		expect(
			await testButton(credential, { apiKey: 'sk-right', url: `${baseUrl}/v1/` }),
		).toBeUndefined();
		expect(received).toEqual([
			expect.objectContaining({
				url: '/v1/models',
				headers: expect.objectContaining({ authorization: 'Bearer sk-right' }),
			}),
		]);

		const refused = await testButton(credential, { apiKey: 'sk-wrong', url: `${baseUrl}/v1` });
		expect(refused?.message).toMatch(/401|Authorization failed|invalid key/i);
	});

	it('the Gemini test lists /v1beta/models with the key in x-goog-api-key, and fails on a refused key', async () => {
		const credential = new AgentCoreGeminiApi();
		expect(await testButton(credential, { apiKey: 'gemini-right', host: baseUrl })).toBeUndefined();
		expect(received).toEqual([
			expect.objectContaining({
				url: '/v1beta/models',
				headers: expect.objectContaining({ 'x-goog-api-key': 'gemini-right' }),
			}),
		]);

		const refused = await testButton(credential, { apiKey: 'gemini-wrong', host: baseUrl });
		expect(refused?.message).toMatch(/401|Authorization failed|invalid key/i);
	});
});
