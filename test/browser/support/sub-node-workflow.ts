/**
 * The workflow of the Logs panel test (issue #15): Webhook → Agent Core on its Connected Chat Model input,
 * fed by n8n's own OpenAI Chat Model sub-node, which the scripted demo model answers. n8n's tracing of
 * that sub-node is what the Logs panel shows; Agent Core itself does not write those entries.
 */
import type { CredentialImport, WorkflowJson } from '../../../scripts/n8n-local';

/** n8n's OpenAI credential; its `url` is set to the scripted server when n8n starts. */
export const OPENAI_CREDENTIAL: Omit<CredentialImport, 'data'> = {
	id: 'agentCoreBrowserOpenAi',
	name: 'OpenAI (browser test, scripted model)',
	type: 'openAiApi',
};

export const SUB_NODE_WEBHOOK_PATH = 'agent-core-sub-node';
export const CHAT_MODEL_NODE = 'OpenAI Chat Model';

/** The workflow, imported beside the examples. One built-in tool (json_transform), as the demo model uses it. */
export const SUB_NODE_WORKFLOW: WorkflowJson = {
	name: 'Browser test: Agent Core on the OpenAI Chat Model sub-node',
	nodes: [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '0c6f3b1e-2d4a-4c59-8e7f-9a0b1c2d3e41',
			parameters: {
				httpMethod: 'POST',
				path: SUB_NODE_WEBHOOK_PATH,
				responseMode: 'responseNode',
				options: {},
			},
		},
		{
			name: 'Agent Core',
			type: 'n8n-nodes-agent-core.agentCore',
			typeVersion: 1,
			position: [240, 0],
			parameters: {
				provider: 'connected',
				inputMode: 'prompt',
				prompt: '={{ $json.body.prompt }}',
				developerText: 'Answer the request. Use json_transform to filter JSON data.',
				allowedTools: ['json_transform'],
				limits: { maxSteps: 6, maxToolCalls: 4, timeout: 60 },
				options: {},
				toolSettingsJson: '{}',
			},
		},
		{
			name: CHAT_MODEL_NODE,
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [160, 220],
			parameters: {
				model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
				responsesApiEnabled: false,
				options: {},
			},
			credentials: {
				[OPENAI_CREDENTIAL.type]: { id: OPENAI_CREDENTIAL.id, name: OPENAI_CREDENTIAL.name },
			},
		},
		{
			name: 'Respond to Webhook',
			type: 'n8n-nodes-base.respondToWebhook',
			typeVersion: 1.1,
			position: [480, 0],
			parameters: { respondWith: 'firstIncomingItem', options: {} },
		},
	],
	connections: {
		Webhook: { main: [[{ node: 'Agent Core', type: 'main', index: 0 }]] },
		'Agent Core': { main: [[{ node: 'Respond to Webhook', type: 'main', index: 0 }]] },
		[CHAT_MODEL_NODE]: {
			ai_languageModel: [[{ node: 'Agent Core', type: 'ai_languageModel', index: 0 }]],
		},
	},
	settings: { executionOrder: 'v1' },
};
