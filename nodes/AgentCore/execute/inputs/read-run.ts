// One item's panel values read once into the engine's run options: models, config, tools, approval, input.
import type { IDataObject, IExecuteFunctions, RelatedExecution } from 'n8n-workflow';
import type {
	AgentHook,
	AgentConfig,
	ChatModel,
	ProviderName,
	RunAgentOptions,
	Tool,
} from '../../../../src/run-path';
import { readField } from '../../../shared/items';
import { nodeError } from '../../../shared/node-errors';
import { checkPlanApproval, readApproval, readStateSecret } from '../governance/approval';
import { readDurableRun } from '../governance/durable-runs';
import { readConnectedModels } from './connected-model';
import { chatModelInputs } from '../../panel/connections';
import { readConnectedTools } from './connected-tools';
import type { ItemPanel, PanelVersion } from '../../panel/version';
import { modelFromCredential } from './provider-credential';
import type { OpenRedis } from '../governance/execution-redis';
import { readMcpServers } from './mcp-servers';
import { readItemFiles } from './read-files';
import { loadMemoryInput } from './connected-memory';
import type { MemoryInput } from '../../../shared/memory-input';
import { CREDENTIAL_TOOLS, withToolCredentials } from './tool-credentials';
import { readWorkflowTools } from './workflow-tools';
import { readGuardrailWorkflow } from './guardrail-workflow';
import { readJsonValue } from './json-field';

/** Everything a run or resume of one item needs, read from the panel once. */
export interface ItemRun {
	provider: ProviderName | 'connected';
	/** The node's own Options fields, read once with the rest of the item's panel (panel/version.ts ItemPanel). */
	options: IDataObject;
	/** Instructions / System Message: the run's developerText. */
	developerText: string;
	/** Require Approval, Audit Trail, Durable Runs, as this version's panel has them on. */
	switches: ItemPanel['switches'];
	sessionId: string;
	model: ChatModel;
	fallbackModel?: ChatModel;
	config: Partial<AgentConfig> & { model: string };
	extraTools: Tool[];
	stateSecret?: string;
	/** Governance → Durable Runs: the run key and the checkpoints' store, or none. */
	durable: Pick<RunAgentOptions, 'runKey' | 'checkpoints'>;
	/** Where MCP tool definitions are pinned: Redis with the node's Redis credential (under Governance), else only the servers' `pins`. */
	mcp: Pick<RunAgentOptions, 'mcpPins'>;
	secrets: string[];
	/** The sub-executions its workflow tools and guardrail workflow start, filled while it runs. */
	subExecutions: RelatedExecution[];
	/** Options → Guardrail Workflow, as a hook at its Guardrail Points (none when unset). */
	hooks: AgentHook[];
}

/**
 * Reads the item's settings in the order their problems were always reported (models, JSON fields, model
 * name, tool credentials, tools, approval, durable runs) and builds the config in one piece; nothing patches it later.
 * A feature's file is entered only when the panel values read here set it: unset, its empty value stands in.
 */
export async function readItemRun(
	context: IExecuteFunctions,
	itemIndex: number,
	version: PanelVersion,
	redis: OpenRedis,
): Promise<ItemRun> {
	// Every panel value this version places, read once and already in the engine's terms (V1/panel.ts, V2/panel.ts).
	const panel = version.readItem(context, itemIndex);
	const { sessionId, options } = panel;
	const provider = context.getNodeParameter('provider', itemIndex) as ProviderName | 'connected';
	const { model, modelName, fallbackModel } = await readModels(
		context,
		itemIndex,
		provider,
		options,
	);
	const builtIns = context.getNodeParameter('allowedTools', itemIndex, []) as string[];
	const toolSettings = ((panel.toolSettingsJson !== undefined
		? readJsonValue(context, panel.toolSettingsJson, itemIndex, 'Tool Settings (JSON)')
		: undefined) ?? {}) as AgentConfig['tool_settings'];
	const outputSchema = panel.outputSchema
		? {
				output_schema: readJsonValue(context, panel.outputSchema.value, itemIndex, 'Output Schema'),
			}
		: {};
	// Version 2's Guardrails (issue #50), checked by the engine entry by entry.
	const guardrails =
		options.guardrails !== undefined
			? { guardrails: readJsonValue(context, options.guardrails, itemIndex, 'Guardrails') }
			: {};
	if (!modelName)
		throw nodeError(
			context,
			'Model is empty',
			itemIndex,
			'Pick a model from the list or type its ID.',
		);
	const withFields = version.withToolFields(context, itemIndex, toolSettings, builtIns);
	const tool_settings = builtIns.some((tool) => CREDENTIAL_TOOLS.includes(tool))
		? await withToolCredentials(context, withFields, builtIns, itemIndex, redis)
		: withFields;
	// Workflow tools and connected tool sub-nodes were chosen by the workflow builder: defining one allows it.
	const subExecutions: RelatedExecution[] = [];
	const readOnly = new Set(
		String(options.readOnlyTools ?? '')
			.split(',')
			.map((name) => name.trim())
			.filter(Boolean),
	);
	const workflowTools = panel.workflowTools.length
		? readWorkflowTools(context, itemIndex, panel.workflowTools, subExecutions, readOnly)
		: [];
	const hooks = options.guardrailWorkflow
		? readGuardrailWorkflow(context, itemIndex, options, subExecutions)
		: [];
	const extraTools = [
		...workflowTools,
		...(await readConnectedTools(context, itemIndex, readOnly)),
	];
	// Declaring an MCP server in Options allows its tools, as defining a workflow tool does (mcp-servers.ts).
	const mcpServers =
		options.mcpServersJson !== undefined
			? readMcpServers(context, options.mcpServersJson, itemIndex, readOnly)
			: { allowedTools: [] };
	const { needsApproval, durableRuns } = panel.switches;
	if (panel.config.approve_plan === true) checkPlanApproval(context, itemIndex, needsApproval);
	const approval: Awaited<ReturnType<typeof readApproval>> = needsApproval
		? await readApproval(context, itemIndex, version.credentialPickers.runState)
		: { tools: [] };
	const durable = durableRuns ? await readDurableRun(context, itemIndex, redis()) : {};
	// Approval and durable runs sign and seal with the same credential's secret.
	const durableSecret = () =>
		readStateSecret(context, itemIndex, 'Durable Runs', version.credentialPickers.runState);
	const stateSecret =
		approval.stateSecret ?? (durable.runKey !== undefined ? await durableSecret() : undefined);
	const config = {
		model: modelName,
		allowed_tools: [
			...builtIns,
			...extraTools.map((tool) => tool.name),
			...mcpServers.allowedTools,
		],
		tool_settings,
		...(mcpServers.servers ? { mcp_servers: mcpServers.servers } : {}),
		...panel.config,
		...(outputSchema as Partial<AgentConfig>),
		...(guardrails as Partial<AgentConfig>),
		approval_required: approval.tools,
		...(approval.maxAgeDays !== undefined ? { run_state_max_age_days: approval.maxAgeDays } : {}),
	};
	const mcpPins = mcpServers.servers
		? await redis().mcpPins(itemIndex, panel.credentialsShown)
		: undefined;
	const mcp = mcpPins ? { mcpPins } : {};
	const secrets = stateSecret ? [stateSecret] : [];
	const { developerText, switches } = panel;
	return {
		provider,
		options,
		developerText,
		switches,
		sessionId,
		model,
		fallbackModel,
		config,
		extraTools,
		stateSecret,
		durable,
		mcp,
		secrets,
		subExecutions,
		hooks,
	};
}

/**
 * The run's models: from the provider credential, or the sub-node on the Chat Model input; and the fallback
 * when Enable Fallback Model is on: the sub-node on the Fallback Model input, or another model of the credential.
 */
export async function readModels(
	context: IExecuteFunctions,
	itemIndex: number,
	provider: ProviderName | 'connected',
	options: IDataObject,
): Promise<{ model: ChatModel; modelName: string; fallbackModel?: ChatModel }> {
	const needsFallback = context.getNodeParameter('needsFallback', itemIndex, false) === true;
	const fallbackSource =
		provider === 'connected'
			? undefined
			: (context.getNodeParameter('fallbackSource', itemIndex, 'input') as string);
	// A credential's model without a fallback has no chat-model input to read.
	const connected =
		provider === 'connected' || needsFallback
			? await readConnectedModels(
					context,
					itemIndex,
					chatModelInputs(provider, needsFallback, fallbackSource),
				)
			: {};
	if (provider === 'connected') {
		// The sub-node names its model; the Model field is hidden then (and n8n cannot read a hidden resource locator).
		const model = connected.primary!;
		return {
			model,
			modelName: model.modelName ?? 'connected chat model',
			fallbackModel: connected.fallback,
		};
	}
	const modelName = context.getNodeParameter('model', itemIndex, '', {
		extractValue: true,
	}) as string;
	const fromCredential = (name?: string) =>
		modelFromCredential(context, provider, {
			itemIndex,
			maxConcurrentCalls: options.maxConcurrentCalls as number | undefined,
			model: name,
		});
	// The key reaches the redactor through the model itself (ChatModel.secrets), as on every path.
	const { model } = await fromCredential();
	if (!needsFallback || fallbackSource !== 'credential')
		return { model, modelName, fallbackModel: connected.fallback };
	const fallbackName = context.getNodeParameter('fallbackModel', itemIndex, '', {
		extractValue: true,
	}) as string;
	if (!fallbackName)
		throw nodeError(
			context,
			'Fallback Model is empty',
			itemIndex,
			'Pick the model that takes over, or turn off Enable Fallback Model.',
		);
	return { model, modelName, fallbackModel: (await fromCredential(fallbackName)).model };
}

/**
 * Input → Prompt after Agent Context's prepare (issue #41): the item carries the loaded conversation in
 * `messages_json`, which Prompt alone would silently drop. It is the run's conversation then; the prompt is
 * added as the newest message only when it is not already its last user message (prepare appends the chat's).
 */
export function promptWithPreparedHistory(
	prompt: string | undefined,
	json: IDataObject | undefined,
): Pick<RunAgentOptions, 'prompt' | 'messages'> {
	const prepared = json?.messages_json;
	if (!Array.isArray(prepared) || prepared.length === 0) return { prompt };
	const last = prepared[prepared.length - 1] as { role?: unknown; content?: unknown } | undefined;
	const asked =
		last?.role === 'user' &&
		(prompt === undefined || prompt.trim() === '' || last.content === prompt);
	return asked ? { messages: prepared } : { messages: prepared, prompt };
}

/**
 * Operation → Run: the user's request, as a prompt or a conversation, the workflow's instructions (read with the
 * panel), and in version 2 the item's binary files (read-files.ts); version 1 sends no files, as published.
 * With a memory on version 2's Memory input, the conversation is the memory's history and the prompt (connected-memory.ts).
 */
export async function readInput(
	context: IExecuteFunctions,
	itemIndex: number,
	run: Pick<ItemRun, 'developerText' | 'options' | 'config'>,
	version: 1 | 2,
	memory?: MemoryInput,
): Promise<Pick<RunAgentOptions, 'prompt' | 'messages' | 'developerText' | 'files'>> {
	const inputMode = context.getNodeParameter('inputMode', itemIndex) as 'prompt' | 'messages';
	// Binary Properties names what must be there; left empty, an item without binary data has no files.
	const named = run.options.binaryProperties;
	const binary = context.getInputData()[itemIndex]?.binary;
	const hasFiles = (named !== undefined && named !== '') || Object.keys(binary ?? {}).length > 0;
	const files =
		version >= 2 && hasFiles
			? await readItemFiles(context, itemIndex, run.options, run.config)
			: [];
	const prompt =
		inputMode === 'prompt' ? (readField(context, 'prompt', itemIndex) as string) : undefined;
	const json = context.getInputData()[itemIndex]?.json;
	const conversation = memory
		? await loadMemoryInput(context, itemIndex, memory, { inputMode, prompt, json })
		: undefined;
	return {
		...(conversation ??
			(inputMode === 'prompt'
				? promptWithPreparedHistory(prompt, json)
				: { messages: context.getNodeParameter('messagesJson', itemIndex) })),
		// Instructions (version 1) or System Message (version 2), --system in the CLI: one setting, named in the settings table.
		developerText: run.developerText,
		...(files.length ? { files } : {}),
	};
}
