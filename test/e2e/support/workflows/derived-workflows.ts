import type { WorkflowJson } from '../../../../scripts/n8n-local';

/** The chat trigger of examples/agent-core-chat.json answers at `<webhookId>/chat`, as the widget posts. */
export const CHAT_TRIGGER_WEBHOOK_ID = '5e0b8f52-0c6d-4a8e-b1f3-6a2d9c7e4b10';
/** Test-only: the same chat workflow with the Chat Trigger in streaming mode. */
export const STREAMING_CHAT_TRIGGER_WEBHOOK_ID = '9a41c3e7-2f5d-4b86-a0c9-1e7d3b5f8a22';
/** Test-only: the main webhook example with Retry On Fail and a credential holding a wrong API key. */
export const WRONG_KEY_WEBHOOK_PATH = 'agent-core-wrong-key';
/** Test-only: the chat example offered in n8n 2.x Chat Hub, by the Chat Trigger's response mode, under these workflow ids. */
export const CHAT_HUB_WORKFLOW_IDS = {
	lastNode: 'agentCoreChatHub',
	streaming: 'agentCoreChatHubStream',
} as const;
/** Test-only: the webhook chat example with Agent Context on In-Memory storage. */
export const MEMORY_CHAT_WEBHOOK_PATH = 'agent-chat-memory';

const copy = (workflow: WorkflowJson): WorkflowJson => {
	const copied: WorkflowJson = JSON.parse(JSON.stringify(workflow));
	delete copied.id;
	return copied;
};

/** The chat example with its Chat Trigger answering in streaming mode (NDJSON chunks) on its own webhook. */
export function withStreamingChatTrigger(chatExample: WorkflowJson): WorkflowJson {
	const workflow = copy(chatExample);
	workflow.name = `${workflow.name} (streaming)`;
	for (const node of workflow.nodes) {
		if (!node.type.endsWith('.chatTrigger')) continue;
		node.webhookId = STREAMING_CHAT_TRIGGER_WEBHOOK_ID;
		node.parameters.options = { ...node.parameters.options, responseMode: 'streaming' };
	}
	return workflow;
}

/** The chat example made available in n8n's Chat (Chat Hub, n8n 2.x), its Chat Trigger in `responseMode`. */
export function withChatHubAccess(
	chatExample: WorkflowJson,
	responseMode: keyof typeof CHAT_HUB_WORKFLOW_IDS,
): WorkflowJson {
	const workflow = copy(chatExample);
	workflow.id = CHAT_HUB_WORKFLOW_IDS[responseMode];
	workflow.name = `${workflow.name} (Chat Hub, ${responseMode})`;
	for (const node of workflow.nodes) {
		if (!node.type.endsWith('.chatTrigger')) continue;
		node.webhookId =
			responseMode === 'streaming'
				? '4a9f3e2d-8c7b-4d6a-9f1e-3b2c0d9e8f44'
				: '3f8e2d1c-7b6a-4c59-8e0d-2a1b9c8d7e33';
		node.parameters.availableInChat = true;
		node.parameters.options = { ...node.parameters.options, responseMode };
	}
	return workflow;
}

/**
 * The main webhook example with Agent Core on a credential whose API key the model server refuses (HTTP
 * 401), n8n's Retry On Fail at 2 tries, and its error output answering HTTP 400 as in the example.
 */
export function withWrongKeyAndRetry(
	webhookExample: WorkflowJson,
	wrongKeyCredential: { id: string; name: string },
): WorkflowJson {
	const workflow = copy(webhookExample);
	workflow.name = `${workflow.name} (wrong API key, Retry On Fail)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = WRONG_KEY_WEBHOOK_PATH;
			node.webhookId = 'c6f0d1a2-8b3e-4c5d-9e7f-0a1b2c3d4e55';
		}
		if (node.type.endsWith('.agentCore')) {
			Object.assign(node, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
			node.credentials = {
				agentCoreOpenAiApi: { id: wrongKeyCredential.id, name: wrongKeyCredential.name },
			};
		}
	}
	return workflow;
}

/** The webhook chat example (errors answered HTTP 400 with the message) with both Agent Context nodes on In-Memory storage. */
export function withInMemoryContext(webhookChatExample: WorkflowJson): WorkflowJson {
	const workflow = copy(webhookChatExample);
	workflow.name = `${workflow.name} (In-Memory storage)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = MEMORY_CHAT_WEBHOOK_PATH;
			node.webhookId = 'e1d2c3b4-a596-4788-9a0b-1c2d3e4f5a66';
		}
		if (node.type.endsWith('.agentContext')) {
			node.parameters.storage = 'memory';
			delete node.credentials;
		}
	}
	return workflow;
}

/** The n8n chat model sub-nodes the chat model example can run on, each as its primary Chat Model in a test-only copy. */
export type SubNodeProvider = 'anthropic' | 'gemini' | 'ollama';

/** Test-only: the webhook path of the chat model example with each other sub-node as its Chat Model. */
export const CHAT_MODEL_WEBHOOK_PATHS: Record<SubNodeProvider, string> = {
	anthropic: 'agent-core-chat-model-anthropic',
	gemini: 'agent-core-chat-model-gemini',
	ollama: 'agent-core-chat-model-ollama',
};
const CHAT_MODEL_WEBHOOK_IDS: Record<SubNodeProvider, string> = {
	anthropic: '8d3e5f72-4b6c-4a19-8e2d-1f0a9b8c7d01',
	gemini: '8d3e5f72-4b6c-4a19-8e2d-1f0a9b8c7d02',
	ollama: '8d3e5f72-4b6c-4a19-8e2d-1f0a9b8c7d03',
};

/** The model each primary sub-node asks for; Gemini's differs from the example's Gemini fallback so the two are told apart. */
export const PRIMARY_MODELS: Record<SubNodeProvider | 'openai', string> = {
	openai: 'gpt-4o-mini',
	anthropic: 'claude-sonnet-4-5',
	gemini: 'gemini-2.5-pro',
	ollama: 'llama3.2',
};

/**
 * Each sub-node as n8n's editor saves it, in a type version both n8n lines have (1.123.81 and 2.41.1), on
 * the credential type whose URL field points it at a server; the credential id is replaced on import.
 */
const PRIMARY_SUB_NODES: Record<
	SubNodeProvider,
	{ type: string; typeVersion: number; parameters: Record<string, unknown>; credentialType: string }
> = {
	anthropic: {
		type: '@n8n/n8n-nodes-langchain.lmChatAnthropic',
		typeVersion: 1.3,
		parameters: { model: { __rl: true, mode: 'id', value: PRIMARY_MODELS.anthropic }, options: {} },
		credentialType: 'anthropicApi',
	},
	gemini: {
		type: '@n8n/n8n-nodes-langchain.lmChatGoogleGemini',
		typeVersion: 1,
		parameters: { modelName: `models/${PRIMARY_MODELS.gemini}`, options: {} },
		credentialType: 'googlePalmApi',
	},
	ollama: {
		type: '@n8n/n8n-nodes-langchain.lmChatOllama',
		typeVersion: 1,
		parameters: { model: PRIMARY_MODELS.ollama, options: {} },
		credentialType: 'ollamaApi',
	},
};

/**
 * The chat model example (examples/agent-core-chat-model.json) with `provider`'s Chat Model sub-node in
 * place of the OpenAI one, on its own webhook; the Gemini fallback stays.
 */
export function withPrimaryChatModel(
	chatModelExample: WorkflowJson,
	provider: SubNodeProvider,
): WorkflowJson {
	const workflow = copy(chatModelExample);
	const subNode = PRIMARY_SUB_NODES[provider];
	workflow.name = `${workflow.name} (${provider} as the Chat Model)`;
	const primaryName = Object.keys(workflow.connections).find((name) => {
		const links = (
			workflow.connections[name] as { ai_languageModel?: Array<Array<{ index: number }>> }
		).ai_languageModel;
		return links?.[0]?.[0]?.index === 0;
	});
	if (!primaryName)
		throw new Error('the chat model example has no sub-node on its Chat Model input');
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = CHAT_MODEL_WEBHOOK_PATHS[provider];
			node.webhookId = CHAT_MODEL_WEBHOOK_IDS[provider];
		}
		if (node.name === primaryName) {
			Object.assign(node, {
				type: subNode.type,
				typeVersion: subNode.typeVersion,
				parameters: subNode.parameters,
			});
			node.credentials = {
				[subNode.credentialType]: {
					id: `${subNode.credentialType}1`,
					name: subNode.credentialType,
				},
			};
		}
	}
	return workflow;
}

/** Test-only: the webhook chat example with a shared token budget on Agent Core, its scope and size from the request body. */
export const SHARED_BUDGET_WEBHOOK_PATH = 'agent-chat-budget';
/** The shared budget's period in the derived workflow. */
export const SHARED_BUDGET_PERIOD_SECONDS = 3600;

/**
 * The webhook chat example behind another webhook path, its Agent Core given the Agent Core: Redis API credential
 * the context nodes use and changed by `changeAgent`: what the shared-budget variants below share.
 */
function withBudgetOnAgentCore(
	example: WorkflowJson,
	name: string,
	path: string,
	webhookId: string,
	changeAgent: (node: WorkflowJson['nodes'][number]) => void,
): WorkflowJson {
	const workflow = copy(example);
	workflow.name = `${workflow.name} (${name})`;
	const redisCredential = workflow.nodes.find((node) =>
		node.type.endsWith('.agentContext'),
	)?.credentials;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook')
			Object.assign(node, { webhookId, parameters: { ...node.parameters, path } });
		if (node.type.endsWith('.agentCore')) {
			changeAgent(node);
			node.credentials = { ...node.credentials, ...redisCredential };
		}
	}
	return workflow;
}

/** The scope and period of the shared-budget variants: from the request body, one hour. */
const BUDGET_SCOPE = {
	sharedBudgetScope: "={{ $('Webhook').item.json.body.budget_scope }}",
	sharedBudgetPeriod: SHARED_BUDGET_PERIOD_SECONDS,
};

/**
 * The webhook chat example with Limits → Shared Token Budget on Agent Core, scope `body.budget_scope` and
 * tokens `body.budget_tokens`, answering as the example does.
 */
export function withSharedBudget(webhookChatExample: WorkflowJson): WorkflowJson {
	return withBudgetOnAgentCore(
		webhookChatExample,
		'shared token budget',
		SHARED_BUDGET_WEBHOOK_PATH,
		'b7c6d5e4-f3a2-4b1c-8d9e-0f1a2b3c4d77',
		// The example is Agent Core version 2 (issue #41): budgets sit under Governance → Budgets.
		(node) => {
			node.parameters.governance = true;
			node.parameters.budgets = {
				...(node.parameters.budgets as object),
				sharedBudgetTokens: "={{ $('Webhook').item.json.body.budget_tokens }}",
				...BUDGET_SCOPE,
			};
		},
	);
}

/** Test-only: the webhook chat example on Agent Core version 2 with a shared cost budget (Governance → Budgets). */
export const SHARED_COST_BUDGET_WEBHOOK_PATH = 'agent-chat-cost-budget';

/**
 * The webhook chat example with its Agent Core on version 2 — the same settings where version 2 keeps them
 * (Session ID, System Message, limits and Tool Settings in Options) — and Governance → Budgets → Shared Cost
 * Budget (USD) `body.budget_cost` for scope `body.budget_scope`, priced from the bundled catalogue (gpt-4o-mini).
 */
export function withSharedCostBudget(webhookChatExample: WorkflowJson): WorkflowJson {
	return withBudgetOnAgentCore(
		webhookChatExample,
		'shared cost budget, version 2',
		SHARED_COST_BUDGET_WEBHOOK_PATH,
		'c8d7e6f5-a4b3-4c2d-9e0f-1a2b3c4d5e88',
		(node) => {
			node.parameters.governance = true;
			node.parameters.budgets = {
				...(node.parameters.budgets as object),
				sharedBudgetCost: "={{ $('Webhook').item.json.body.budget_cost }}",
				...BUDGET_SCOPE,
			};
		},
	);
}

/** Test-only: the chat model example answering as a stream. */
export const CHAT_MODEL_STREAMING_WEBHOOK_PATH = 'agent-core-chat-model-stream';

/**
 * The chat model example (OpenAI Chat Model sub-node, Gemini fallback) behind a Webhook in Response Mode
 * Streaming, as examples/agent-core-streaming.json has it: no Respond nodes, the stream is the answer.
 */
export function withStreamingResponse(chatModelExample: WorkflowJson): WorkflowJson {
	const workflow = copy(chatModelExample);
	workflow.name = `${workflow.name} (streaming webhook)`;
	const responders = new Set(
		workflow.nodes
			.filter((node) => node.type === 'n8n-nodes-base.respondToWebhook')
			.map((node) => node.name),
	);
	workflow.nodes = workflow.nodes.filter((node) => !responders.has(node.name));
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters = {
				...node.parameters,
				path: CHAT_MODEL_STREAMING_WEBHOOK_PATH,
				responseMode: 'streaming',
			};
			node.webhookId = '6c5b4a39-2817-4e06-9d5c-4b3a29180f11';
		}
		// Without the Respond nodes, Agent Core has no outputs to connect; its error output goes too.
		if (node.type.endsWith('.agentCore')) delete (node as { onError?: string }).onError;
	}
	for (const name of Object.keys(workflow.connections)) {
		const main = (workflow.connections[name] as { main?: Array<Array<{ node: string }>> }).main;
		if (main)
			(workflow.connections[name] as { main?: unknown }).main = main.map((links) =>
				links.filter((link) => !responders.has(link.node)),
			);
	}
	return workflow;
}

/** Test-only (queue mode): the webhook chat example with Audit Trail on the Agent Core: Audit Database API credential. */
export const AUDIT_WEBHOOK_PATH = 'agent-chat-audit';

/** The webhook chat example keeping each run in the audit database; its answer also carries `audit` and `trace_digest`. */
export function withAuditTrail(
	webhookChatExample: WorkflowJson,
	credential: { id: string; name: string },
): WorkflowJson {
	const workflow = copy(webhookChatExample);
	workflow.name = `${workflow.name} (audit trail)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = AUDIT_WEBHOOK_PATH;
			node.webhookId = 'c3d2e1f0-a9b8-4c7d-9e6f-5a4b3c2d1e88';
		}
		if (node.type.endsWith('.agentCore')) {
			// Version 2 (the examples' since issue #41) shows Audit Trail, and reads it, under Governance.
			node.parameters.governance = true;
			node.parameters.auditTrail = true;
			node.credentials = { ...node.credentials, agentCoreAuditDatabaseApi: credential };
		}
		if (
			node.type === 'n8n-nodes-base.respondToWebhook' &&
			String(node.parameters.responseBody).includes('final_answer')
		) {
			node.parameters.responseBody = String(node.parameters.responseBody).replace(
				'trace: $json.trace',
				'trace: $json.trace, audit: $json.audit, trace_digest: $json.trace_digest',
			);
		}
	}
	return workflow;
}
