// Test-only workflows of issue #40 (files end to end): the chat and webhook examples with uploads, on Agent Core version 2.
import { readExampleWorkflows, type WorkflowJson } from '../../../../scripts/n8n-local';

type WorkflowNode = WorkflowJson['nodes'][number];

/** The simple chat example (Chat Trigger → Agent Core) with Allow File Uploads, answering at `<webhookId>/chat`. */
export const UPLOAD_CHAT_WEBHOOK_ID = 'b4f1e2d3-6a5c-4e7b-8d9f-0a1b2c3d4e01';
/** The chat example with Agent Context on Redis and Allow File Uploads. */
export const UPLOAD_CONTEXT_CHAT_WEBHOOK_ID = 'b4f1e2d3-6a5c-4e7b-8d9f-0a1b2c3d4e02';
/** A Webhook taking a multipart body → Agent Core (Passthrough Binary PDFs on) → Respond to Webhook. */
export const MULTIPART_WEBHOOK_PATH = 'agent-core-files';
/** The same through n8n's OpenAI Chat Model sub-node (a LangChain ChatOpenAI) instead of the node's own provider. */
export const MULTIPART_CHAT_MODEL_PATH = 'agent-core-files-chat-model';

/** Where n8n's chat widget posts for a Chat Trigger's webhook id. */
export const chatPath = (webhookId: string): string => `${webhookId}/chat`;

const copy = (workflow: WorkflowJson): WorkflowJson => {
	const copied: WorkflowJson = JSON.parse(JSON.stringify(workflow));
	delete copied.id;
	return copied;
};

/**
 * Agent Core moved to node version 2 with the same settings where version 2 keeps them (System Message,
 * Session ID, limits and Tool Settings in Options), as derived-workflows.ts' withSharedCostBudget does;
 * `options` are added to version 2's Options (e.g. passthroughBinaryPdfs).
 */
export function toVersion2(node: WorkflowNode, options: Record<string, unknown> = {}): void {
	const {
		limits,
		options: oldOptions,
		developerText,
		sessionId,
		toolSettingsJson,
		...top
	} = node.parameters as Record<string, unknown>;
	node.typeVersion = 2;
	const moved = { developerText, sessionId, toolSettingsJson };
	node.parameters = {
		...top,
		options: {
			...(oldOptions as object),
			...(limits as object),
			...Object.fromEntries(Object.entries(moved).filter(([, value]) => value !== undefined)),
			...options,
		},
	};
}

/** The chat example's Chat Trigger with Allow File Uploads on, on its own webhook id. */
function withUploads(node: WorkflowNode, webhookId: string): void {
	node.webhookId = webhookId;
	node.parameters.options = {
		...node.parameters.options,
		allowFileUploads: true,
		allowedFilesMimeTypes: '*',
	};
}

/** (a) examples/agent-core-simple-chat.json with uploads allowed and Agent Core on version 2. */
function uploadChat(example: WorkflowJson): WorkflowJson {
	const workflow = copy(example);
	workflow.name = `${workflow.name} (file uploads, version 2)`;
	for (const node of workflow.nodes) {
		if (node.type.endsWith('.chatTrigger')) withUploads(node, UPLOAD_CHAT_WEBHOOK_ID);
		if (node.type.endsWith('.agentCore')) toVersion2(node);
	}
	return workflow;
}

/**
 * (b) examples/agent-core-webhook.json on its own path, taking the prompt from the multipart body's `prompt`
 * field (n8n puts a multipart body's fields in `body`, its files in the item's binary), Agent Core on
 * version 2 with Passthrough Binary PDFs on.
 */
function multipartWebhook(example: WorkflowJson): WorkflowJson {
	const workflow = copy(example);
	workflow.name = `${workflow.name} (multipart PDF, version 2)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = MULTIPART_WEBHOOK_PATH;
			node.webhookId = 'b4f1e2d3-6a5c-4e7b-8d9f-0a1b2c3d4e03';
		}
		if (node.type.endsWith('.agentCore')) toVersion2(node, { passthroughBinaryPdfs: true });
	}
	return workflow;
}

/**
 * (c) examples/agent-core-chat.json (Chat Trigger → Agent Context prepare → Agent Core → persist, on Redis)
 * with uploads allowed and Agent Core on version 2, as a user wires it: prepare passes the upload on.
 */
function uploadContextChat(example: WorkflowJson): WorkflowJson {
	const workflow = copy(example);
	workflow.name = `${workflow.name} (file uploads, version 2)`;
	const trigger = workflow.nodes.find((node) => node.type.endsWith('.chatTrigger'));
	const prepare = workflow.nodes.find(
		(node) => node.type.endsWith('.agentContext') && node.parameters.operation === 'prepare',
	);
	const agent = workflow.nodes.find((node) => node.type.endsWith('.agentCore'));
	if (!trigger || !prepare || !agent)
		throw new Error('the chat example has no Chat Trigger, Agent Context prepare or Agent Core');
	withUploads(trigger, UPLOAD_CONTEXT_CHAT_WEBHOOK_ID);
	toVersion2(agent);
	return workflow;
}

/**
 * (d) examples/agent-core-chat-model.json (Webhook → Agent Core version 2 on an OpenAI Chat Model sub-node) on
 * its own path, with Passthrough Binary PDFs on: the file goes through the class's own client.
 */
function multipartChatModel(example: WorkflowJson): WorkflowJson {
	const workflow = copy(example);
	workflow.name = `${workflow.name} (multipart PDF)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = MULTIPART_CHAT_MODEL_PATH;
			node.webhookId = 'b4f1e2d3-6a5c-4e7b-8d9f-0a1b2c3d4e04';
		}
		if (node.type.endsWith('.agentCore'))
			node.parameters.options = { ...node.parameters.options, passthroughBinaryPdfs: true };
	}
	return workflow;
}

/** The four test-only workflows of the files suite, derived from the examples. */
export function filesWorkflows(): WorkflowJson[] {
	const [simpleChat, webhook, contextChat, chatModel] = readExampleWorkflows([
		'agent-core-simple-chat.json',
		'agent-core-webhook.json',
		'agent-core-chat.json',
		'agent-core-chat-model.json',
	]);
	return [
		uploadChat(simpleChat),
		multipartWebhook(webhook),
		uploadContextChat(contextChat),
		multipartChatModel(chatModel),
	];
}
