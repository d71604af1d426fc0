import { budgetKey, DEFAULT_BUDGET_KEY_PREFIX } from '../../../src/budget/redis-ledger';
import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureN8n, type N8nInstallation } from '../../../scripts/n8n-cache';
import { turnsKeysOf } from './context-keys';
import {
	createN8nInstance,
	readExampleWorkflows,
	useCredential,
	portInUse,
	type CredentialImport,
	type N8nInstance,
	type N8nWorker,
	type WorkflowJson,
} from '../../../scripts/n8n-local';
import {
	startScriptedServer,
	type Script,
	type ScriptedServer,
} from '../../../src/demo/scripted-server';
import {
	SECRET as FEISHU_SECRET,
	startFakeFeishu,
	type FakeFeishu,
} from '../../support/servers/feishu';
import {
	CHAT_MODEL_WEBHOOK_PATHS,
	CHAT_TRIGGER_WEBHOOK_ID,
	MEMORY_CHAT_WEBHOOK_PATH,
	STREAMING_CHAT_TRIGGER_WEBHOOK_ID,
	WRONG_KEY_WEBHOOK_PATH,
	withChatHubAccess,
	withInMemoryContext,
	withSharedBudget,
	withSharedCostBudget,
	withStreamingResponse,
	CHAT_MODEL_STREAMING_WEBHOOK_PATH,
	SHARED_BUDGET_WEBHOOK_PATH,
	SHARED_COST_BUDGET_WEBHOOK_PATH,
	AUDIT_WEBHOOK_PATH,
	withAuditTrail,
	withPrimaryChatModel,
	withStreamingChatTrigger,
	withWrongKeyAndRetry,
} from './workflows/derived-workflows';
import { VALID_API_KEY } from './model-script';
import { webhookPathsOf } from './n8n-executions';
import { OwnerSession, parseJsonOrUndefined } from './n8n-rest';
import { PhaseClock } from './phase-clock';
import {
	checkPostgres,
	createDatabase,
	dropDatabase,
	newRunTag,
	openE2eRedis,
	postgresServer,
	type E2eRedis,
	type PostgresServer,
} from './services';

/** The example workflows every suite imports, by their production webhook path. */
export const WEBHOOKS = {
	/** examples/agent-core-webhook.json: the user-facing example, errors routed to an HTTP 400. */
	main: 'agent-core',
	/** examples/agent-core-webhook-strict-limits.json: the same with max_steps 1. */
	strictLimits: 'agent-core-strict',
	/** Test-only: the main example without its error branch, to see what n8n itself answers on a node error. */
	unrouted: 'agent-core-unrouted',
	/** examples/agent-context-chat.json: Agent Context prepare → Agent Core → persist, on Redis. */
	chat: 'agent-chat',
	/** examples/agent-core-workflow-tool.json: Agent Core with the add_numbers workflow tool. */
	workflowTool: 'agent-core-workflow-tool',
	/** examples/agent-core-http-tool.json: http_request with the API header credential. */
	httpTool: 'agent-core-http-tool',
	/** examples/agent-core-feishu-notify.json: feishu_bot with the Feishu bot credential. */
	feishu: 'agent-core-feishu',
	/** examples/agent-core-streaming.json: a Webhook in Response Mode Streaming → Agent Core. */
	streaming: 'agent-core-stream',
	/** examples/agent-core-chat.json: the Chat Trigger (last-node mode) where n8n's chat widget posts. */
	chatTrigger: `${CHAT_TRIGGER_WEBHOOK_ID}/chat`,
	/** examples/agent-core-simple-chat.json: Chat Trigger → Agent Core, no Redis (the chat `npm run dev` imports). */
	simpleChat: 'fe090214-c7fe-42fb-9d09-c5030844cac8/chat',
	/** Test-only: the same chat workflow with the Chat Trigger in streaming mode. */
	chatTriggerStreaming: `${STREAMING_CHAT_TRIGGER_WEBHOOK_ID}/chat`,
	/** Test-only: the main example with a wrong API key and Retry On Fail (2 tries). */
	wrongKey: WRONG_KEY_WEBHOOK_PATH,
	/** Test-only: the webhook chat example with Agent Context on In-Memory storage. */
	memoryChat: MEMORY_CHAT_WEBHOOK_PATH,
	/** examples/agent-core-approval.json: feishu_bot waits for approval; a Wait node's resume webhook takes the decision. */
	approval: 'agent-core-approval',
	/** examples/agent-core-typed-answer.json: an invoice's total as a typed answer, read by a Set node. */
	typedAnswer: 'agent-core-typed',
	/** Test-only: the chat model example (OpenAI sub-node) behind a Webhook in Response Mode Streaming. */
	chatModelStreaming: CHAT_MODEL_STREAMING_WEBHOOK_PATH,
	/** Test-only: the webhook chat example with a shared token budget (scope and tokens from the body). */
	sharedBudget: SHARED_BUDGET_WEBHOOK_PATH,
	sharedCostBudget: SHARED_COST_BUDGET_WEBHOOK_PATH,
	/** Test-only, queue mode only: the webhook chat example with Audit Trail (a PostgreSQL database of its own). */
	audit: AUDIT_WEBHOOK_PATH,
	/** examples/agent-core-chat-model.json: n8n's OpenAI Chat Model sub-node, Gemini's as the Fallback Model. */
	chatModel: 'agent-core-chat-model',
	/** Test-only: the same with the Anthropic Chat Model sub-node as the Chat Model. */
	chatModelAnthropic: CHAT_MODEL_WEBHOOK_PATHS.anthropic,
	/** Test-only: the same with the Google Gemini Chat Model sub-node as the Chat Model. */
	chatModelGemini: CHAT_MODEL_WEBHOOK_PATHS.gemini,
	/** Test-only: the same with the Ollama Chat Model sub-node as the Chat Model. */
	chatModelOllama: CHAT_MODEL_WEBHOOK_PATHS.ollama,
} as const;

/** The header the imported *Agent Core: HTTP Request Tool API* credential sends, and to which host. */
export const HTTP_TOOL_HEADER = {
	name: 'X-Api-Key',
	secret: 'e2e-header-secret-5b1d9a',
	allowedDomains: '127.0.0.1',
} as const;

const EXAMPLE_FILES = [
	'agent-core-webhook.json',
	'agent-core-webhook-strict-limits.json',
	'agent-context-chat.json',
	'agent-core-workflow-tool.json',
	'agent-core-workflow-tool-add-numbers.json',
	'agent-core-http-tool.json',
	'agent-core-feishu-notify.json',
	'agent-core-streaming.json',
	'agent-core-chat.json',
	'agent-core-chat-model.json',
	'agent-core-typed-answer.json',
	'agent-core-approval.json',
	'agent-core-simple-chat.json',
];

/**
 * The scenarios' HTTP targets listen on loopback, which http_request refuses by default; the test lets the
 * HTTP tool example reach them (the credential's Allowed Domains still limit it to 127.0.0.1), and send
 * the credential's header over their plain http on a random port, which a real API would get over https.
 */
function withPrivateNetworkForHttpTool(workflow: WorkflowJson): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (
				!node.type.endsWith('.agentCore') ||
				!(node.parameters.allowedTools as string[] | undefined)?.includes('http_request')
			)
				return node;
			// Version 2 (the examples' since issue #41) keeps Tool Settings (JSON) under Options.
			const options = (node.parameters.options ?? {}) as Record<string, unknown>;
			const settings = JSON.parse(String(options.toolSettingsJson || '{}'));
			settings.http_request = {
				...settings.http_request,
				allow_private_network: true,
				allow_insecure_headers: true,
			};
			return {
				...node,
				parameters: {
					...node.parameters,
					options: { ...options, toolSettingsJson: JSON.stringify(settings) },
				},
			};
		}),
	};
}

/** The main example with the error output removed: Agent Core errors fail the execution, as by default. */
function withoutErrorRouting(example: WorkflowJson): WorkflowJson {
	const workflow: WorkflowJson = JSON.parse(JSON.stringify(example));
	delete workflow.id;
	workflow.name = `${workflow.name} (errors not routed)`;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = WEBHOOKS.unrouted;
			node.webhookId = '32a0cd49-1583-4dff-8288-53b49dfc86be';
		}
		if (node.name === 'Agent Core') delete node.onError;
	}
	workflow.nodes = workflow.nodes.filter((node) => node.name !== 'Respond with Error');
	(workflow.connections['Agent Core'] as { main: unknown[] }).main.length = 1;
	return workflow;
}

/** Every Agent Context node keeps its history under `keyPrefix` (this run's own) instead of the default. */
function withContextKeyPrefix(workflow: WorkflowJson, keyPrefix: string): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.type.endsWith('.agentContext')
				? {
						...node,
						parameters: { ...node.parameters, options: { ...node.parameters.options, keyPrefix } },
					}
				: node,
		),
	};
}

const MODEL_CREDENTIAL_TYPE = 'agentCoreOpenAiApi';
/** The API key of the credential the scripted model refuses with HTTP 401 (see model-script.ts). */
export const WRONG_API_KEY = 'e2e-wrong-key';
const REDIS_CREDENTIAL_TYPE = 'agentCoreRedisApi';
const HTTP_HEADER_CREDENTIAL_TYPE = 'agentCoreHttpHeaderApi';
const FEISHU_CREDENTIAL_TYPE = 'agentCoreFeishuBotApi';
const SERVICES_TIMEOUT_MS = 2 * 60 * 1000;
const INSTALL_TIMEOUT_MS = 45 * 60 * 1000;
const SET_UP_TIMEOUT_MS = 10 * 60 * 1000;
const TEAR_DOWN_TIMEOUT_MS = 2 * 60 * 1000;

export interface WebhookResponse {
	status: number;
	contentType: string;
	text: string;
	/** The parsed body, or undefined when it is not JSON. */
	body: any;
}

/** One stored conversation turn as Agent Context persists it (a JSON entry of the session's Redis list). */
export interface StoredTurnJson {
	messages: Array<{ role: string; content: string }>;
	at: string;
	[key: string]: unknown;
}

export interface QueueModeOptions {
	/** How many `n8n worker` processes to start. */
	workers: number;
	/** Jobs one worker runs at a time (`n8n worker --concurrency`). */
	concurrency: number;
}

/** What a suite adds to or changes in the standard set-up. */
export interface AgentCoreInN8nOptions {
	queue?: QueueModeOptions;
	/**
	 * Test-only workflows imported beside the examples: their credential references (by type) point at the
	 * imported credentials, as the examples' do, and start() waits for their production webhooks too.
	 */
	workflows?: WorkflowJson[];
	/** false: import only `workflows`, not the examples and their variants (a suite that needs none starts sooner). */
	examples?: boolean;
	/** Extra environment for every n8n process: the main, the workers and the CLI (e.g. QUEUE_WORKER_* timings). */
	env?: Record<string, string>;
	/** The API key of the imported model credential (default VALID_API_KEY), for a suite whose own script checks another key. */
	modelApiKey?: string;
}

export interface AgentCoreInN8n {
	installation: N8nInstallation;
	n8n: N8nInstance;
	/** The scripted model server the imported credential points at. */
	model: ScriptedServer;
	/** The fake Feishu bot the imported Feishu credential points at (signature checked with its SECRET). */
	feishu: FakeFeishu;
	/** The Redis behind the imported Redis credential (and, in queue mode, n8n's job queue). */
	redis: E2eRedis;
	/** The Agent Context key prefix of this run: sessions are stored under the hash tag `{<prefix><session id>}` (redisSessionKeys). */
	contextKeyPrefix: string;
	/** The queue-mode workers, or an empty list on a single n8n process. */
	workers: N8nWorker[];
	/** POSTs a JSON body to a production webhook. */
	post(webhookPath: string, body: unknown): Promise<WebhookResponse>;
	/** Fails with the response and the tail of n8n's log unless the status is `status`. */
	expectStatus(response: WebhookResponse, status: number): void;
	/** An id no other scenario of any run uses, e.g. for a session. */
	uniqueId(label: string): string;
	/** A session's stored turns, oldest first, read straight from Redis. */
	readTurns(sessionId: string): Promise<StoredTurnJson[]>;
	/** The tokens a shared budget scope has used in its current period, from the ledger in Redis. */
	budgetTokens(scope: string, periodSeconds: number): Promise<number>;
	/** The scope's cost this period in USD, as the ledger holds it. */
	budgetCost(scope: string, periodSeconds: number): Promise<number>;
	/** Queue mode: the rows of the audit database's runs table (Audit Trail), oldest first. */
	auditRuns(): Promise<Array<Record<string, unknown>>>;
	/** Queue mode: the name of the worker whose log says it started this execution, if any did. */
	workerOf(executionId: string): string | undefined;
	/** Queue mode: SIGKILLs the named worker's process group (no graceful shutdown) and resolves once it exited. */
	killWorker(name: string): Promise<void>;
	/** Queue mode: runs `work` with a client of n8n's own PostgreSQL database (see n8n-executions.ts for what to read there). */
	n8nDatabase<Result>(work: (client: PgClient) => Promise<Result>): Promise<Result>;
	/** Adds a line to the report printed with the phase timings when the suite ends. */
	report(line: string): void;
}

/**
 * For the enclosing describe block: Redis (and, in queue mode, PostgreSQL) checked first, the n8n line from
 * the cache (installed on first use), a scripted model server in this process, and a fresh n8n with the
 * packed package installed as a community package, credentials pointing at the model server and Redis, and
 * the example workflows imported and active. With `queue`, n8n runs as one main process and `workers`
 * `n8n worker` processes on a fresh PostgreSQL database and a Bull queue in Redis under this run's prefix.
 * Everything is stopped and removed in afterAll (n8n processes, model server, Redis keys, database), also
 * when a scenario or the set-up failed, and afterAll fails if a port stays bound.
 */
export function useAgentCoreInN8n(
	line: 1 | 2,
	script: Script,
	options: AgentCoreInN8nOptions = {},
): () => AgentCoreInN8n {
	const { queue, examples: withExamples = true } = options;
	const label = `n8n line ${line}${queue ? ` in queue mode (main + ${queue.workers} workers)` : ''}`;
	const clock = new PhaseClock(label);
	const runTag = newRunTag();
	const contextKeyPrefix = `${runTag}:ctx:`;
	const reportLines: string[] = [];
	let redis: E2eRedis | undefined;
	let postgres: PostgresServer | undefined;
	let database: string | undefined;
	let auditDatabase: string | undefined;
	let installation: N8nInstallation | undefined;
	let model: ScriptedServer | undefined;
	let feishu: FakeFeishu | undefined;
	let n8n: N8nInstance | undefined;
	let userFolder: string | undefined;
	let context: AgentCoreInN8n | undefined;

	// Services first: a missing Redis or PostgreSQL fails in seconds, with one line saying how to get it.
	beforeAll(async () => {
		redis = await clock.time('services (Redis, PostgreSQL)', async () => {
			const opened = await openE2eRedis();
			if (queue) {
				postgres = postgresServer();
				try {
					await checkPostgres(postgres);
				} catch (error) {
					await opened.close();
					throw error;
				}
			}
			return opened;
		});
	}, SERVICES_TIMEOUT_MS);

	beforeAll(async () => {
		if (!redis) return; // The services hook failed and said why.
		installation = await clock.time('install (cache)', () => ensureN8n(line));
		if (installation.reused) clock.note('install (cache)', 'reused');
	}, INSTALL_TIMEOUT_MS);

	beforeAll(async () => {
		// An earlier hook failed and said why; its error is each scenario's error.
		if (!redis || !installation) return;
		const nodesFolder = process.env.AGENT_CORE_E2E_NODES_FOLDER;
		if (!nodesFolder)
			throw new Error(
				'AGENT_CORE_E2E_NODES_FOLDER is not set: run through jest.e2e.config.js, whose global set-up packs the package',
			);
		model = await startScriptedServer({ script });
		const modelCredential: CredentialImport = {
			id: 'agentCoreE2eCred',
			name: 'Agent Core e2e: scripted model',
			type: MODEL_CREDENTIAL_TYPE,
			data: { apiKey: options.modelApiKey ?? VALID_API_KEY, url: model.openaiBaseUrl },
		};
		const redisCredential: CredentialImport = {
			id: 'agentCoreE2eRedis',
			name: 'Agent Core e2e: Redis',
			type: REDIS_CREDENTIAL_TYPE,
			data: {
				host: redis.host,
				port: redis.port,
				username: '',
				password: redis.password ?? '',
				database: redis.db,
				tls: false,
			},
		};
		const headerCredential: CredentialImport = {
			id: 'agentCoreE2eHeader',
			name: 'Agent Core e2e: API header',
			type: HTTP_HEADER_CREDENTIAL_TYPE,
			data: {
				headerName: HTTP_TOOL_HEADER.name,
				headerSecret: HTTP_TOOL_HEADER.secret,
				allowedDomains: HTTP_TOOL_HEADER.allowedDomains,
			},
		};
		feishu = await startFakeFeishu();
		feishu.secret = FEISHU_SECRET;
		const feishuCredential: CredentialImport = {
			id: 'agentCoreE2eFeishu',
			name: 'Agent Core e2e: Feishu bot',
			type: FEISHU_CREDENTIAL_TYPE,
			data: { webhookUrlWithToken: feishu.url, signingSecret: FEISHU_SECRET },
		};
		const runStateCredential: CredentialImport = {
			id: 'agentCoreE2eRunState',
			name: 'Agent Core e2e: run state',
			type: 'agentCoreRunStateApi',
			data: { signingSecret: 'e2e-run-state-secret-4c1f9a2b7d' },
		};
		// n8n's own Redis credential (n8n-nodes-base Redis.credentials: host, port, database, password, ssl), for
		// n8n's Redis Chat Memory on Agent Core's Memory input.
		const n8nRedisCredential: CredentialImport = {
			id: 'agentCoreE2eN8nRedis',
			name: 'Agent Core e2e: Redis (n8n)',
			type: 'redis',
			data: {
				host: redis.host,
				port: redis.port,
				database: redis.db,
				password: redis.password ?? '',
				ssl: false,
			},
		};
		const credentials = [
			modelCredential,
			redisCredential,
			n8nRedisCredential,
			headerCredential,
			feishuCredential,
			runStateCredential,
			...subNodeCredentials(model),
		];
		// Kept out of `credentials`, whose entries every workflow is pointed at; only the wrong-key workflow uses it.
		const wrongKeyCredential: CredentialImport = {
			...modelCredential,
			id: 'agentCoreE2eWrongKey',
			name: 'Agent Core e2e: wrong API key',
			data: { ...modelCredential.data, apiKey: WRONG_API_KEY },
		};
		const pointedAtCredentials = (workflow: WorkflowJson) =>
			withContextKeyPrefix(
				credentials.reduce(
					(patched, credential) => useCredential(patched, credential.type, credential),
					workflow,
				),
				contextKeyPrefix,
			);
		const extraWorkflows = (options.workflows ?? []).map(pointedAtCredentials);
		const env = queue
			? await clock.time('PostgreSQL database', () => queueModeEnvironment())
			: options.env;
		const workflows = withExamples
			? [...exampleWorkflows(wrongKeyCredential, pointedAtCredentials), ...extraWorkflows]
			: extraWorkflows;
		const auditCredential = queue && withExamples ? await auditDatabaseCredential() : undefined;
		if (auditCredential)
			workflows.push(
				withAuditTrail(
					workflows[EXAMPLE_FILES.indexOf('agent-context-chat.json')],
					auditCredential,
				),
			);
		// Inside the run folder of the global set-up, which removes it even after a Ctrl-C.
		userFolder = fs.mkdtempSync(
			path.join(
				process.env.AGENT_CORE_E2E_RUN_FOLDER ?? os.tmpdir(),
				`n8n-${line}${queue ? '-queue' : ''}-`,
			),
		);
		n8n = await clock.time('set up (package, import, activate)', () =>
			createN8nInstance({
				installation: installation!,
				nodesFolder,
				credentials: [
					...credentials,
					wrongKeyCredential,
					...(auditCredential ? [auditCredential] : []),
				],
				workflows,
				userFolder,
				env,
			}),
		);
		const exampleWebhooks = withExamples
			? Object.values(WEBHOOKS).filter((webhookPath) => queue || webhookPath !== WEBHOOKS.audit)
			: [];
		await clock.time('n8n start until webhooks answer', () =>
			n8n!.start({ webhookPaths: [...exampleWebhooks, ...extraWorkflows.flatMap(webhookPathsOf)] }),
		);
		if (queue) {
			await clock.time(`start ${queue.workers} workers until ready`, () =>
				Promise.all(
					Array.from({ length: queue.workers }, (_, index) =>
						n8n!.startWorker({ name: `worker-${index + 1}`, concurrency: queue.concurrency }),
					),
				),
			);
		}
		// The owner is set up before any scenario runs a workflow: a set-up racing the first production execution
		// (which marks the owner "activated" in n8n 2.41) once left a password the sign-in refused (401).
		await clock.time('owner set-up', () => new OwnerSession(n8n!.baseUrl).signIn());
		const { start: _start, stop: _stop, ...setUpTimings } = n8n.timings;
		clock.note(
			'set up (package, import, activate)',
			formatTimings(pick(setUpTimings, ['import:credentials', 'import:workflow', 'activate'])),
		);
		if (queue)
			clock.note(
				`start ${queue.workers} workers until ready`,
				formatTimings(
					pick(
						setUpTimings,
						n8n.workers.map((worker) => `start ${worker.name}`),
					),
				),
			);
		clock.begin('scenarios');
		const instance = n8n;
		/** One connection to a database of the PostgreSQL server, for `work`. */
		const withDatabase = async <Result>(
			name: string,
			work: (client: PgClient) => Promise<Result>,
		): Promise<Result> => {
			const client = new PgClient({
				host: postgres!.host,
				port: postgres!.port,
				user: postgres!.user,
				password: postgres!.password,
				database: name,
			});
			await client.connect();
			try {
				return await work(client);
			} finally {
				await client.end();
			}
		};
		context = {
			installation: installation!,
			n8n: instance,
			model,
			feishu,
			redis,
			contextKeyPrefix,
			workers: instance.workers,
			post: (webhookPath, body) => post(instance, webhookPath, body),
			expectStatus: (response, status) => expectStatus(instance, response, status),
			uniqueId: (idLabel) => `${idLabel}-${randomBytes(4).toString('hex')}`,
			// The stores' one key layout (the session key as a Redis Cluster hash tag), as the Agent Context node addresses it.
			readTurns: async (sessionId) => {
				const turns: StoredTurnJson[] = [];
				for (const key of await turnsKeysOf(redis!.client, contextKeyPrefix, sessionId))
					for (const entry of await redis!.client.lrange(key, 0, -1))
						turns.push(JSON.parse(entry) as StoredTurnJson);
				return turns;
			},
			budgetTokens: async (scope, periodSeconds) =>
				Number(
					(await redis!.client.hget(
						budgetKey(DEFAULT_BUDGET_KEY_PREFIX, scope, periodSeconds, Date.now()),
						'tokens',
					)) ?? 0,
				),
			budgetCost: async (scope, periodSeconds) =>
				Number(
					(await redis!.client.hget(
						budgetKey(DEFAULT_BUDGET_KEY_PREFIX, scope, periodSeconds, Date.now()),
						'cost',
					)) ?? 0,
				),
			auditRuns: async () => {
				if (!auditDatabase)
					throw new Error('the audit database exists in queue mode only, with the examples');
				return withDatabase(
					auditDatabase,
					async (client) =>
						(await client.query('SELECT * FROM agent_core_audit_runs ORDER BY created_at')).rows,
				);
			},
			workerOf: (executionId) =>
				instance.workers.find((worker) =>
					new RegExp(`Worker started execution ${executionId} \\(`).test(worker.log()),
				)?.name,
			killWorker: async (name) => {
				const worker = instance.workers.find((candidate) => candidate.name === name);
				if (!worker) throw new Error(`no worker named ${name}`);
				await worker.kill();
			},
			n8nDatabase: (work) => {
				if (!database)
					throw new Error("n8n's own database is read in queue mode only (PostgreSQL)");
				return withDatabase(database, work);
			},
			report: (reportLine) => reportLines.push(reportLine),
		};
	}, SET_UP_TIMEOUT_MS);

	/** The examples and their test-only variants, each pointed at the imported credentials. */
	function exampleWorkflows(
		wrongKeyCredential: CredentialImport,
		pointedAtCredentials: (workflow: WorkflowJson) => WorkflowJson,
	): WorkflowJson[] {
		const examples = readExampleWorkflows(EXAMPLE_FILES);
		const chatModelExample = examples[EXAMPLE_FILES.indexOf('agent-core-chat-model.json')];
		const subNodeVariants = (['anthropic', 'gemini', 'ollama'] as const).map((provider) =>
			withPrimaryChatModel(chatModelExample, provider),
		);
		// In EXAMPLE_FILES order first, so that an example's index there is its index here.
		const patched = [...examples, withoutErrorRouting(examples[0]), ...subNodeVariants].map(
			(workflow) => withPrivateNetworkForHttpTool(pointedAtCredentials(workflow)),
		);
		const chatExample = patched[EXAMPLE_FILES.indexOf('agent-core-chat.json')];
		const webhookChatExample = patched[EXAMPLE_FILES.indexOf('agent-context-chat.json')];
		return [
			...patched,
			withStreamingChatTrigger(chatExample),
			withWrongKeyAndRetry(patched[0], wrongKeyCredential),
			withInMemoryContext(webhookChatExample),
			withSharedBudget(webhookChatExample),
			withSharedCostBudget(webhookChatExample),
			withStreamingResponse(patched[EXAMPLE_FILES.indexOf('agent-core-chat-model.json')]),
			// Chat Hub exists in n8n 2.x only.
			...(line === 2
				? [withChatHubAccess(chatExample, 'lastNode'), withChatHubAccess(chatExample, 'streaming')]
				: []),
		];
	}

	/** A fresh PostgreSQL database and the environment of a queue-mode n8n around it and this run's Redis prefixes. */
	async function queueModeEnvironment(): Promise<Record<string, string>> {
		database = runTag;
		await createDatabase(postgres!, database);
		return {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: redis!.host,
			QUEUE_BULL_REDIS_PORT: String(redis!.port),
			QUEUE_BULL_REDIS_DB: String(redis!.db),
			...(redis!.password ? { QUEUE_BULL_REDIS_PASSWORD: redis!.password } : {}),
			// The job queue and n8n's own Redis keys (pub/sub channels, cache) under this run's tag, so that
			// nothing meets another run's or another n8n's.
			QUEUE_BULL_PREFIX: `${runTag}_bull`,
			N8N_REDIS_KEY_PREFIX: `${runTag}_n8n`,
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres!.host,
			DB_POSTGRESDB_PORT: String(postgres!.port),
			DB_POSTGRESDB_DATABASE: database,
			DB_POSTGRESDB_USER: postgres!.user,
			DB_POSTGRESDB_PASSWORD: postgres!.password,
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			// Executions are saved (the defaults) so that their records can be read back from PostgreSQL.
			...options.env,
		};
	}

	/** Queue mode: a database of its own for Audit Trail, and the credential n8n reaches it with. */
	async function auditDatabaseCredential(): Promise<CredentialImport> {
		auditDatabase = `${runTag}_audit`;
		await createDatabase(postgres!, auditDatabase);
		const { host, port, user, password } = postgres!;
		return {
			id: 'agentCoreE2eAudit',
			name: 'Agent Core e2e: audit database',
			type: 'agentCoreAuditDatabaseApi',
			data: { host, port, database: auditDatabase, user, password, ssl: 'disable' },
		};
	}

	afterAll(async () => {
		clock.end('scenarios');
		const problems: string[] = [];
		const attempt = async (what: string, work: () => Promise<unknown>) => {
			try {
				await work();
			} catch (error) {
				problems.push(`${what}: ${(error as Error).message}`);
			}
		};
		const port = n8n?.port;
		await clock.time('stop', async () => {
			await attempt('stopping n8n', async () =>
				n8n?.stop({ keepUserFolder: Boolean(process.env.AGENT_CORE_E2E_KEEP) }),
			);
			await attempt('closing the model server', async () => model?.close());
			await attempt('closing the fake Feishu bot', async () => feishu?.close());
		});
		await clock.time('clean up (Redis keys, database)', async () => {
			if (redis) await attempt('removing Redis keys', () => redis!.deleteKeys(runTag));
			if (database)
				await attempt(`dropping database ${database}`, () => dropDatabase(postgres!, database!));
			if (auditDatabase)
				await attempt(`dropping database ${auditDatabase}`, () =>
					dropDatabase(postgres!, auditDatabase!),
				);
			await attempt('closing Redis', async () => redis?.close());
		});
		if (userFolder && !process.env.AGENT_CORE_E2E_KEEP)
			fs.rmSync(userFolder, { recursive: true, force: true });
		clock.print(reportLines);
		if (n8n && (await n8n.portsInUse()))
			problems.push(
				`a port of the stopped n8n (${port}, its task broker or a worker's) is still bound`,
			);
		if (model && (await portInUse(Number(new URL(model.url).port))))
			problems.push(`the scripted model server's port ${model.url} is still bound`);
		if (problems.length) throw new Error(problems.join('\n'));
	}, TEAR_DOWN_TIMEOUT_MS);

	return () => {
		if (!context) throw new Error(`${label} did not start; see the beforeAll error above`);
		return context;
	};
}

/**
 * The credentials of n8n's own chat model sub-nodes (OpenAI, Anthropic, Gemini, Ollama), each with the
 * valid API key and its URL field on the scripted server, where the sub-node's SDK adds its own path.
 */
function subNodeCredentials(model: ScriptedServer): CredentialImport[] {
	const credential = (type: string, data: Record<string, unknown>): CredentialImport => ({
		id: `agentCoreE2e_${type}`,
		name: `Agent Core e2e: ${type}`,
		type,
		data,
	});
	return [
		credential('openAiApi', { apiKey: VALID_API_KEY, url: model.openaiBaseUrl }),
		credential('anthropicApi', { apiKey: VALID_API_KEY, url: model.url }),
		credential('googlePalmApi', { apiKey: VALID_API_KEY, host: model.url }),
		credential('ollamaApi', { apiKey: VALID_API_KEY, baseUrl: model.url }),
	];
}

async function post(
	n8n: N8nInstance,
	webhookPath: string,
	body: unknown,
): Promise<WebhookResponse> {
	const response = await fetch(n8n.webhookUrl(webhookPath), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(90000),
	});
	const text = await response.text();
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		text,
		body: parseJsonOrUndefined(text),
	};
}

function expectStatus(n8n: N8nInstance, response: WebhookResponse, status: number): void {
	if (response.status === status) return;
	const workerLogs = n8n.workers
		.map((worker) => `\n--- ${worker.name} log (tail) ---\n${worker.logTail(3000)}`)
		.join('');
	throw new Error(
		`expected HTTP ${status}, got ${response.status}: ${response.text.slice(0, 2000)}\n--- n8n log (tail) ---\n${n8n.logTail(4000)}${workerLogs}`,
	);
}

function pick(timings: Record<string, number>, names: string[]): Record<string, number> {
	return Object.fromEntries(
		names.filter((name) => timings[name] !== undefined).map((name) => [name, timings[name]]),
	);
}

function formatTimings(timings: Record<string, number>): string {
	return Object.entries(timings)
		.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`)
		.join(', ');
}
