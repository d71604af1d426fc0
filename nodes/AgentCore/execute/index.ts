// Agent Core's execute path, in the order it runs; both node versions share it, each with its panel reader:
// the items' pipeline, then one item's panel read once, the agent run or resumed (with the process's tracer),
// its output item shaped.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	RelatedExecution,
} from 'n8n-workflow';
import { mapItems } from '../../shared/items';
import { readResume, routeByApproval } from './governance/approval';
import { ExecutionRedis, type OpenRedis } from './governance/execution-redis';
import {
	ambientTracer,
	resumeAgent,
	runAgent,
	tracingFromEnvironment,
	type AgentResult,
	type RunAgentOptions,
	type RunTracing,
} from '../../../src/run-path';
import {
	chatOutput,
	failedRunJson,
	runFailureError,
	type RunFailurePolicy,
} from '../../shared/run-failures';
import { recordAiCalls } from './output/ai-events';
import { readAudit } from './governance/audit';
import { intermediateStepsOf } from './output/intermediate-steps';
import type { PanelVersion } from '../panel/version';
import { readInput, readItemRun, type ItemRun } from './inputs/read-run';
import { openItemStream } from './output/streaming';
import { limitWords } from './output/limit-words';
import { openConnectedMemory, runSavingTurn } from './inputs/connected-memory';

type RunInput = Awaited<ReturnType<typeof readInput>>;

/** What the items of one execution share: the node version's panel reader, the sub-executions their workflow tools started, and its Redis. */
interface ExecutionState {
	panel: PanelVersion;
	started: RelatedExecution[];
	redis: OpenRedis;
}

/**
 * One output item per input item, each paired with its input; continueOnFail() turns errors into items.
 * With Require Approval, a run that waits for a person leaves by the Needs Approval output. `panel` is the
 * node version's reader (V1/panel.ts or V2/panel.ts), chosen once by the node class.
 *
 * 1. The execution's shared state: the panel reader (../panel/version.ts), one Redis owner
 *    (governance/execution-redis.ts, made for the first item that uses Redis), the sub-executions started.
 * 2. Per item (runItem below): its panel read once into the run's options, with the model, tools, MCP servers,
 *    memory and files it connects (inputs/read-run.ts ItemRun, and the rest of inputs/),
 * 3. the agent run or resumed, under approval, audit and durable runs (governance/), streaming as it goes (output/),
 * 4. the output item shaped (output/: intermediate steps, AI events, a limit's words), or the failure as the
 *    node's error or an item.
 * 5. The items routed to Done or Needs Approval (governance/approval.ts), and the last sub-execution linked.
 *
 * A feature's files are entered only when the node or item uses it: each step asks what it already read (the
 * panel's values, the item's binary keys, the connected inputs) before calling into governance/, inputs/ or output/.
 */
export async function agentCoreExecute(
	this: IExecuteFunctions,
	panel: PanelVersion,
): Promise<INodeExecutionData[][]> {
	let redis: ExecutionRedis | undefined;
	const openRedis = () => (redis ??= new ExecutionRedis(this, panel));
	const state: ExecutionState = { panel, started: [], redis: openRedis };
	const batching = panel.readBatching(this);
	const runEach = (itemIndex: number) => runItem(this, itemIndex, state);
	const items = await mapItems(this, runEach, batching, panel.fieldNames).finally(() =>
		redis?.close(),
	);
	const { started } = state;
	if (started.length > 0)
		this.setMetadata({
			subExecution: started[started.length - 1],
			subExecutionsCount: started.length,
		});
	// Without the Needs Approval output every item leaves by the one output.
	return panel.hasApprovalOutput(this) ? routeByApproval(items, true) : [items];
}

/** Options → On Model Error / On Limit Reached; a model error fails the node unless the user chose otherwise. */
function readFailurePolicy(options: IDataObject): RunFailurePolicy {
	return {
		onModelError: options.onModelError === 'returnItem' ? 'returnItem' : 'fail',
		onLimitReached: options.onLimitReached === 'fail' ? 'fail' : 'returnItem',
	};
}

/** read → run → shape: the item's settings are read once, and the run's config is not changed after. */
async function runItem(
	context: IExecuteFunctions,
	itemIndex: number,
	{ panel, started, redis }: ExecutionState,
): Promise<INodeExecutionData> {
	const resuming = panel.isResuming(context, itemIndex);
	const run = await readItemRun(context, itemIndex, panel, redis);
	const { provider, options, sessionId, config, subExecutions } = run;
	// Version 2's Memory input: its history is the new run's conversation, and the turn is saved after (runSavingTurn).
	const memory = await openConnectedMemory(context, itemIndex, panel.version);
	// A new run's input (its files too) is read before anything streams: a missing or oversized file fails first.
	const input = resuming
		? undefined
		: await readInput(context, itemIndex, run, panel.version, memory);
	// `output`, the reply n8n's chat shows: the answer, or why there is none in one sentence. A streamed chat shows
	// the stream, not the item: a run without an answer ends its stream with that sentence (a limit's: panel words).
	// A run that answered never enters shared/run-failures.ts, the file of runs that did not (issue #49).
	const answered = (ended: AgentResult) => ended.finish_reason === 'final';
	const reply = (ended: AgentResult, streamed = false) =>
		answered(ended)
			? ended.final_answer
			: chatOutput(ended, limitWords(ended.finish_reason, config, panel.version), streamed);
	// The stream showed a paused plan's list when the plan arrived: its ending only says it waits.
	const ending = (ended: AgentResult) => (answered(ended) ? undefined : reply(ended, true));
	const result = await runSavingTurn(context, itemIndex, memory, () =>
		runOrResume(context, itemIndex, { run, redis, input, ending }),
	);
	started.push(...subExecutions);
	// A connected chat model's own tracing records its calls; the credential mode records them here.
	const tokens = provider === 'connected' ? {} : recordAiCalls(context, result);
	// The editor links an item to the last execution its workflow tools started, as for n8n's Workflow Tool.
	const linked = subExecutions.length
		? { metadata: { subExecution: subExecutions[subExecutions.length - 1] } }
		: {};
	const failure = answered(result)
		? undefined
		: runFailureError(context, result, readFailurePolicy(options), itemIndex);
	if (failure) {
		if (!context.continueOnFail()) throw failure;
		// n8n moves an item to the error output only when its json is { error } alone (and replaces the json of
		// an item carrying `error` with just the message), so the run's details ride only on the regular output.
		const json =
			context.getNode().onError === 'continueErrorOutput'
				? { error: failure.message }
				: failedRunJson(result, failure, sessionId);
		return { json, pairedItem: { item: itemIndex }, ...linked };
	}
	// Options → Return Intermediate Steps (version 2): the tool calls as n8n's AI Agent lists them, for the Evaluation node.
	const steps =
		options.returnIntermediateSteps === true
			? { intermediateSteps: intermediateStepsOf(result.trace) }
			: {};
	const json = {
		...result,
		output: reply(result),
		...(sessionId ? { session_id: sessionId } : {}),
		...tokens,
		...steps,
	};
	return { json: json as unknown as IDataObject, pairedItem: { item: itemIndex }, ...linked };
}

/** The agent run, or the resumed run when the item carries an approval's decision, streaming while it goes. */
async function runOrResume(
	context: IExecuteFunctions,
	itemIndex: number,
	{
		run,
		redis,
		input,
		ending,
	}: {
		run: ItemRun;
		redis: OpenRedis;
		input: RunInput | undefined;
		ending: (result: AgentResult) => string | undefined;
	},
): Promise<AgentResult> {
	const {
		options,
		sessionId,
		model,
		fallbackModel,
		config,
		extraTools,
		stateSecret,
		durable,
		mcp,
		secrets,
		hooks,
	} = run;
	// output/streaming.ts only while Stream Response is not off and the execution streams (n8n ≥ 1.105 can say so).
	const streams =
		options.streamResponse !== false &&
		typeof context.isStreaming === 'function' &&
		context.isStreaming();
	const stream = streams ? openItemStream(context, itemIndex, options) : undefined;
	const common = {
		model,
		fallbackModel,
		extraTools,
		...(config.shared_budget ? { budgetLedger: await redis().budgetLedger(itemIndex) } : {}),
		secrets,
		config,
		stateSecret,
		...(hooks.length ? { hooks } : {}),
		...durable,
		...mcp,
		sessionId: sessionId || undefined,
		signal: context.getExecutionCancelSignal?.(),
		onEvent: stream?.onEvent,
		streamAnswer: stream?.streamAnswer,
		...(run.switches.auditTrail ? await readAudit(context, itemIndex) : {}),
		...runTracer(),
	};
	const resume = async () =>
		resumeAgent({
			...common,
			...readResume(context, itemIndex),
			usedStates: await redis().usedStateRegistry(itemIndex),
		});
	const running = input ? runAgent({ ...common, ...input }) : resume();
	return await running.then(
		(result) => (stream?.close(ending(result)), result),
		(error: unknown) => {
			stream?.close();
			throw error;
		},
	);
}

/** Agent Core's own OTLP tracing, made on the first run that asks and kept for the process (null: not asked yet). */
let ownTracing: RunTracing | undefined | null = null;

/**
 * The tracer for the run's spans: n8n's own, when the process has a global OpenTelemetry provider; else
 * Agent Core's OTLP/HTTP export when OTEL_EXPORTER_OTLP_ENDPOINT is set (one per process); else none.
 */
function runTracer(): Pick<RunAgentOptions, 'tracer'> {
	const ambient = ambientTracer();
	if (ambient) return { tracer: ambient };
	if (ownTracing === null) ownTracing = tracingFromEnvironment();
	return ownTracing ? { tracer: ownTracing.tracer } : {};
}
