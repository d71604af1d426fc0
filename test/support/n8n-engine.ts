/**
 * Runs workflows through n8n's real execution engine (n8n-core's WorkflowExecute over an
 * n8n-workflow Workflow), with real expressions, execute contexts, credentials lookup and
 * sub-workflow calls — only the database and the HTTP server of the n8n CLI are left out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Container } from '@n8n/di';
import {
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	InstanceSettings,
	WorkflowExecute,
} from 'n8n-core';
// Not exported from the package root; needed only to stop its 60-second cleanup interval.
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import {
	EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE,
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	type ExecuteWorkflowData,
	type ExecuteWorkflowOptions,
	type ExecutionError,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IConnections,
	type IDataObject,
	type IExecuteWorkflowInfo,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	TEST_INPUT_NODE_TYPE,
	TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE,
	harnessNodeTypes,
} from './test-nodes';

/** Decrypted credential data by credential type name, as `this.getCredentials(type)` returns it. */
export interface TestCredentials {
	[credentialType: string]: Record<string, unknown>;
}

/** A workflow's graph: what a test writes by hand or imports from n8n's JSON. */
export interface WorkflowDefinition {
	nodes: INode[];
	connections: IConnections;
}

/** One run of {@link runWorkflow}. */
export interface RunWorkflowOptions extends WorkflowDefinition {
	/** Node type name → instance, e.g. `{ agentCore: new AgentCore() }`; the harness adds its test nodes. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	credentials?: TestCredentials;
	/** Sub-workflows by id, for nodes that call `this.executeWorkflow({ id }, items)` (`{ code }` works too). */
	workflows?: Record<string, WorkflowDefinition>;
	/** The workflow's static data; the engine mutates this object in place. */
	staticData?: IDataObject;
	/** The workflow's id, as `this.getWorkflow().id` returns it; default `test-workflow`. */
	workflowId?: string;
	/** Stream as a Webhook in Response Mode Streaming does: n8n-core's isStreaming() is true, sendChunk is kept. */
	streaming?: boolean;
}

/** What a run produced, with readers for the parts tests look at. */
export interface WorkflowRunResult {
	/** The engine's own result (status, runData, resultData.error...). */
	run: IRun;
	/** Items a node emitted on an output in its last run; throws if the node did not run. */
	outputOf(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error a node's last run ended with, if any. */
	errorOf(nodeName: string): Error | undefined;
	/** Every `executeWorkflow` call made during the run, nested ones included, in call order. */
	executeWorkflowCalls: Array<{ workflowId: string; items: INodeExecutionData[] }>;
	/** Every `logAiEvent` a node made (n8n's event log and log streaming), in order. */
	aiEvents: Array<{ event: string; node: string; msg: string }>;
	/** With `streaming`: every chunk a node sent (n8n-core's sendChunk), in order. */
	chunks: Array<{ type: string; node: string; itemIndex: number; content?: string }>;
}

const MAIN_WORKFLOW_ID = 'test-workflow';

let temporaryUserFolder: string | undefined;

/**
 * n8n-core reads its services from the @n8n/di container. Three of them need care in tests:
 * InstanceSettings writes a settings file into the user folder (so the folder must be a temp dir,
 * never ~/.n8n), the Logger would print every debug line, and SSHClientsManager starts an
 * interval that keeps jest from exiting. Everything else is built lazily by the container.
 */
function prepareEngineOnce(): void {
	if (temporaryUserFolder !== undefined) return;
	temporaryUserFolder = mkdtempSync(path.join(tmpdir(), 'agent-core-n8n-'));
	// Both are read when the config objects are first built, which is the Container.get below.
	process.env.N8N_USER_FOLDER = temporaryUserFolder;
	process.env.N8N_LOG_LEVEL = 'silent';
	const { n8nFolder } = Container.get(InstanceSettings);
	if (!n8nFolder.startsWith(temporaryUserFolder)) {
		throw new Error(
			`n8n's InstanceSettings were built before the harness and point at ${n8nFolder}`,
		);
	}
	Container.get(SSHClientsManager).onShutdown();
}

/** n8n's instance id in this test process (from the harness's encryption key), as a node's getInstanceId() returns it. */
export function engineInstanceId(): string {
	prepareEngineOnce();
	return Container.get(InstanceSettings).instanceId;
}

if (typeof afterAll === 'function') {
	afterAll(() => {
		if (temporaryUserFolder !== undefined)
			rmSync(temporaryUserFolder, { recursive: true, force: true });
	});
}

/** The node types a run may use, looked up the way n8n's NodeTypes service does. */
class NodeTypeRegistry implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (type === undefined) {
			throw new Error(`Unknown node type "${nodeType}": pass it in runWorkflow's nodeTypes`);
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Hands out the test's credentials as if n8n had decrypted them from its database. */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: TestCredentials) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	// Credential types are not loaded, so their `authenticate` blocks are not applied.
	async authenticate(
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	// Only the CLI's OAuth and credential-test flows ask for the encrypted form; n8n-core never does.
	async getCredentials(): Promise<ICredentials> {
		throw new Error(
			'Encrypted credentials are not available in the test engine; nodes get them via getDecrypted',
		);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		return this.find(nodeCredentials, type);
	}

	// A refreshed OAuth token or an updated secret is what later calls in the same run should see.
	async updateCredentials(
		_node: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.credentials[type] = data;
	}

	async updateCredentialsOauthTokenData(
		node: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		await this.updateCredentials(node, type, data);
	}

	getCredentialsProperties(): INodeProperties[] {
		return [];
	}

	private find(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): ICredentialDataDecryptedObject {
		const data = this.credentials[type];
		if (data === undefined) {
			// Same message as n8n's CredentialNotFoundError.
			throw new Error(
				`Credential with ID "${nodeCredentials.id}" does not exist for type "${type}".`,
			);
		}
		// A copy, so a node cannot change what the next run sees.
		return structuredClone(data) as ICredentialDataDecryptedObject;
	}
}

/** State shared by the main execution and every sub-workflow execution it starts. */
interface EngineSession {
	nodeTypes: NodeTypeRegistry;
	credentialsHelper: TestCredentialsHelper;
	workflows: Record<string, WorkflowDefinition>;
	executeWorkflowCalls: WorkflowRunResult['executeWorkflowCalls'];
	aiEvents: WorkflowRunResult['aiEvents'];
	runsByExecutionId: Map<string, IRun>;
	/** Sub-executions started with `doNotWaitToFinish`; awaited before runWorkflow returns. */
	detachedExecutions: Array<Promise<unknown>>;
	executionCount: number;
}

function createWorkflow(
	session: EngineSession,
	id: string,
	definition: WorkflowDefinition,
	staticData?: IDataObject,
): Workflow {
	return new Workflow({
		id,
		name: id,
		// The Workflow constructor writes parameter defaults into the nodes it gets; keep the test's own objects intact.
		nodes: structuredClone(definition.nodes),
		connections: definition.connections,
		active: false,
		nodeTypes: session.nodeTypes,
		staticData,
		// New workflows in n8n 1.x use the v1 order (each branch runs to its end before the next).
		settings: { executionOrder: 'v1' },
	});
}

function toWorkflowData(workflow: Workflow): IWorkflowBase {
	const now = new Date();
	return {
		id: workflow.id,
		name: workflow.name ?? workflow.id,
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		settings: workflow.settings,
	};
}

/** The equivalent of the CLI's `WorkflowExecuteAdditionalData.getBase()` plus lifecycle hooks. */
function createAdditionalData(
	session: EngineSession,
	workflow: Workflow,
	mode: WorkflowExecuteMode,
): IWorkflowExecuteAdditionalData {
	session.executionCount += 1;
	const executionId = String(session.executionCount);
	return {
		executionId,
		hooks: new ExecutionLifecycleHooks(mode, executionId, toWorkflowData(workflow)),
		credentialsHelper: session.credentialsHelper,
		externalSecretsProxy: Container.get(ExternalSecretsProxy),
		executeWorkflow: async (workflowInfo, _parentAdditionalData, options) =>
			await executeSubWorkflow(session, workflowInfo, options),
		getRunExecutionData: async (id) => session.runsByExecutionId.get(id)?.data,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		variables: {},
		logAiEvent: (event, payload) => {
			session.aiEvents.push({ event, node: payload.nodeName, msg: payload.msg });
		},
		startRunnerTask: async () => {
			throw new Error('Task runners (Code node) are not available in the test engine');
		},
	};
}

function findSubWorkflowStart(workflow: Workflow): INode {
	const startTypes = [TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE, EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE];
	const start = Object.values(workflow.nodes).find(
		(node) => startTypes.includes(node.type) && !node.disabled,
	);
	if (start === undefined) {
		throw new Error(
			`Missing node to start execution: sub-workflow "${workflow.id}" needs a ${TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE} node`,
		);
	}
	return start;
}

/** The engine stores errors as plain copies; give tests a real Error with the same fields. */
function toError(stored: ExecutionError | undefined): Error | undefined {
	if (stored === undefined) return undefined;
	if (stored instanceof Error) return stored;
	return Object.assign(new Error((stored as Error).message), stored);
}

/**
 * Mirrors the CLI's `executeWorkflow`/`startExecution`: the sub-workflow runs in 'integrated' mode,
 * starting at its trigger with the caller's items, and the caller gets the last executed node's
 * output as `{ executionId, data }` — or the sub-workflow's error thrown.
 */
async function executeSubWorkflow(
	session: EngineSession,
	workflowInfo: IExecuteWorkflowInfo,
	options: ExecuteWorkflowOptions,
): Promise<ExecuteWorkflowData> {
	const workflowId = workflowInfo.id ?? workflowInfo.code?.id ?? options.parentWorkflowId;
	const definition = workflowInfo.code ?? session.workflows[workflowId];
	if (definition === undefined) throw new Error(`Workflow does not exist: "${workflowId}"`);
	const items = options.inputData ?? [{ json: {} }];
	session.executeWorkflowCalls.push({ workflowId, items });

	const workflow = createWorkflow(session, workflowId, definition);
	const additionalData = createAdditionalData(session, workflow, 'integrated');
	const executionId = additionalData.executionId as string;
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: findSubWorkflowStart(workflow),
					data: { main: [items] },
					metadata: { parentExecution: options.parentExecution },
					source: null,
				},
			],
		},
		parentExecution: options.parentExecution,
	});
	const execution = (async () => {
		const workflowExecute = new WorkflowExecute(additionalData, 'integrated', runExecutionData);
		const run = await workflowExecute.processRunExecutionData(workflow);
		session.runsByExecutionId.set(executionId, run);
		return run;
	})();

	if (options.doNotWaitToFinish) {
		session.detachedExecutions.push(execution.catch(() => undefined));
		return { executionId, data: [null] };
	}
	const run = await execution;
	if (run.finished === true || run.status === 'waiting') {
		const { runData, lastNodeExecuted } = run.data.resultData;
		const lastTask = lastNodeExecuted === undefined ? undefined : runData[lastNodeExecuted]?.at(-1);
		return { executionId, data: lastTask?.data?.main ?? [], waitTill: run.waitTill };
	}
	const error =
		toError(run.data.resultData.error) ?? new Error(`Sub-workflow "${workflowId}" failed`);
	throw Object.assign(error, { executionId, workflowId });
}

/**
 * Runs a workflow the way a manual execution does (`WorkflowExecute.run` from the start node),
 * starting at its testInput node, or at n8n's usual start node when it has none.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRunResult> {
	prepareEngineOnce();
	const session: EngineSession = {
		nodeTypes: new NodeTypeRegistry({ ...harnessNodeTypes(), ...options.nodeTypes }),
		credentialsHelper: new TestCredentialsHelper({ ...options.credentials }),
		workflows: options.workflows ?? {},
		executeWorkflowCalls: [],
		aiEvents: [],
		runsByExecutionId: new Map(),
		detachedExecutions: [],
		executionCount: 0,
	};
	const workflow = createWorkflow(
		session,
		options.workflowId ?? MAIN_WORKFLOW_ID,
		options,
		options.staticData,
	);
	const startNode = Object.values(workflow.nodes).find(
		(node) => node.type === TEST_INPUT_NODE_TYPE && !node.disabled,
	);
	const additionalData = createAdditionalData(session, workflow, 'manual');
	const chunks: WorkflowRunResult['chunks'] = [];
	if (options.streaming) {
		additionalData.streamingEnabled = true;
		additionalData.hooks!.addHandler('sendChunk', ({ type, content, metadata }) => {
			chunks.push({ type, node: metadata.nodeName, itemIndex: metadata.itemIndex, content });
		});
	}
	const run = await new WorkflowExecute(additionalData, 'manual').run(workflow, startNode);
	await Promise.all(session.detachedExecutions);

	const lastTaskOf = (nodeName: string) => {
		const tasks = run.data.resultData.runData[nodeName];
		if (tasks === undefined || tasks.length === 0) {
			const ran = Object.keys(run.data.resultData.runData).join(', ') || 'none';
			throw new Error(`Node "${nodeName}" did not run (nodes that ran: ${ran})`);
		}
		return tasks[tasks.length - 1];
	};
	return {
		run,
		outputOf: (nodeName, outputIndex = 0) => lastTaskOf(nodeName).data?.main[outputIndex] ?? [],
		errorOf: (nodeName) => toError(lastTaskOf(nodeName).error),
		executeWorkflowCalls: session.executeWorkflowCalls,
		aiEvents: session.aiEvents,
		chunks,
	};
}
