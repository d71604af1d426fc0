import type { IDataObject, IExecuteFunctions, INodeExecutionData, RelatedExecution } from 'n8n-workflow';
import { type AgentConfig, type ChatModel, type ProviderName, resumeAgent, runAgent } from '../../src';
import { mapItems } from '../shared/items';
import { nodeError } from '../shared/node-errors';
import { failedRunJson, runFailureError, type RunFailurePolicy } from '../shared/run-failures';
import { recordAiCalls } from './ai-events';
import { ExecutionUsedStates, readApproval, readResume, routeByApproval } from './approval';
import { readAudit, runTracer } from './audit';
import { readField } from '../shared/default-expressions';
import { ExecutionLedger } from './budget-ledger';
import { chatModelInputs, readConnectedModels } from './connected-model';
import { readConnectedTools } from './connected-tools';
import { modelFromCredential } from './provider-credential';
import { openItemStream } from './streaming';
import { injectToolCredentials } from './tool-credentials';
import { readWorkflowTools } from './workflow-tools';

/** Panel values of one item → the engine's config. Names map one to one onto the config keys README.md lists. */
function readConfig(context: IExecuteFunctions, itemIndex: number, model: string, options: IDataObject): Partial<AgentConfig> & { model: string } {
  const limits = context.getNodeParameter('limits', itemIndex, {}) as IDataObject;
  const config: Record<string, unknown> = {
    model,
    allowed_tools: context.getNodeParameter('allowedTools', itemIndex, []) as string[],
    tool_settings: readJsonParameter(context, 'toolSettingsJson', itemIndex, 'Tool Settings (JSON)') ?? {},
  };
  const mapping: Array<[IDataObject, string, keyof AgentConfig]> = [
    [limits, 'maxSteps', 'max_steps'],
    [limits, 'maxToolCalls', 'max_tool_calls'],
    [limits, 'loopLimit', 'loop_limit'],
    [limits, 'singleCallTimeout', 'single_call_timeout'],
    [limits, 'timeout', 'timeout'],
    [limits, 'totalTokenBudget', 'total_token_budget'],
    [limits, 'observationMaxLen', 'observation_max_len'],
    [options, 'temperature', 'temperature'],
    [options, 'maxOutputTokens', 'max_output_tokens'],
    [options, 'reasoningEffort', 'reasoning_effort'],
    [options, 'jsonMode', 'json_mode'],
    [options, 'promptExamples', 'prompt_examples'],
  ];
  for (const [source, name, key] of mapping) {
    if (source[name] !== undefined) config[key] = source[name];
  }
  if (Number(limits.sharedBudgetTokens) > 0) {
    config.shared_budget = { scope: String(limits.sharedBudgetScope ?? ''), tokens: limits.sharedBudgetTokens, period_seconds: limits.sharedBudgetPeriod ?? 86400 };
  }
  if (options.outputFormat === 'json') config.output_schema = readJsonValue(context, options.outputSchema, itemIndex, 'Output Schema');
  // 0 in the panel means the provider's default.
  if (config.max_output_tokens === 0) delete config.max_output_tokens;
  return config as Partial<AgentConfig> & { model: string };
}

function readJsonParameter(context: IExecuteFunctions, name: string, itemIndex: number, label: string): unknown {
  return readJsonValue(context, context.getNodeParameter(name, itemIndex, undefined), itemIndex, label);
}

/** A JSON field's value: parsed when it is text, as it is when an expression already gave an object. */
function readJsonValue(context: IExecuteFunctions, value: unknown, itemIndex: number, label: string): unknown {
  if (typeof value !== 'string') return value;
  if (value.trim() === '') return undefined;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw nodeError(context, `${label} is not valid JSON: ${(error as Error).message}`, itemIndex, 'Fix the JSON in that field, or use an expression that returns an object.');
  }
}

/**
 * The run's models: from the provider credential, or the sub-node on the Chat Model input; and the fallback
 * when Enable Fallback Model is on: the sub-node on the Fallback Model input, or another model of the credential.
 */
async function readModels(
  context: IExecuteFunctions,
  itemIndex: number,
  provider: ProviderName | 'connected',
  options: IDataObject,
): Promise<{ model: ChatModel; modelName: string; fallbackModel?: ChatModel; secrets: string[] }> {
  const needsFallback = context.getNodeParameter('needsFallback', itemIndex, false) === true;
  const fallbackSource = provider === 'connected' ? undefined : (context.getNodeParameter('fallbackSource', itemIndex, 'input') as string);
  const connected = await readConnectedModels(context, itemIndex, chatModelInputs(provider, needsFallback, fallbackSource));
  if (provider === 'connected') {
    // The sub-node names its model; the Model field is hidden then (and n8n cannot read a hidden resource locator).
    const model = connected.primary!;
    return { model, modelName: model.modelName ?? 'connected chat model', fallbackModel: connected.fallback, secrets: [] };
  }
  const modelName = context.getNodeParameter('model', itemIndex, '', { extractValue: true }) as string;
  const fromCredential = (name?: string) =>
    modelFromCredential(context, provider, { itemIndex, maxConcurrentCalls: options.maxConcurrentCalls as number | undefined, model: name });
  const { apiKey, model } = await fromCredential();
  if (!needsFallback || fallbackSource !== 'credential') return { model, modelName, fallbackModel: connected.fallback, secrets: [apiKey] };
  const fallbackName = context.getNodeParameter('fallbackModel', itemIndex, '', { extractValue: true }) as string;
  if (!fallbackName) throw nodeError(context, 'Fallback Model is empty', itemIndex, 'Pick the model that takes over, or turn off Enable Fallback Model.');
  return { model, modelName, fallbackModel: (await fromCredential(fallbackName)).model, secrets: [apiKey] };
}

/** Options → On Model Error / On Limit Reached; a model error fails the node unless the user chose otherwise. */
function readFailurePolicy(options: IDataObject): RunFailurePolicy {
  return {
    onModelError: options.onModelError === 'returnItem' ? 'returnItem' : 'fail',
    onLimitReached: options.onLimitReached === 'fail' ? 'fail' : 'returnItem',
  };
}

/** What the items of one execution share: the sub-executions their workflow tools started, and the budget ledger. */
interface ExecutionState {
  started: RelatedExecution[];
  ledger: ExecutionLedger;
  usedStates: ExecutionUsedStates;
}

async function runItem(context: IExecuteFunctions, itemIndex: number, { started, ledger, usedStates }: ExecutionState): Promise<INodeExecutionData> {
  const resuming = context.getNodeParameter('operation', itemIndex, 'run') === 'resume';
  const sessionId = String(readField(context, 'sessionId', itemIndex, '') ?? '');
  const provider = context.getNodeParameter('provider', itemIndex) as ProviderName | 'connected';
  // Read once: n8n copies and resolves the whole collection on every read.
  const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
  const { model, modelName, fallbackModel, secrets } = await readModels(context, itemIndex, provider, options);
  const config = readConfig(context, itemIndex, modelName, options);
  if (!config.model) {
    throw nodeError(context, 'Model is empty', itemIndex, 'Pick a model from the list or type its ID.');
  }
  await injectToolCredentials(context, config, itemIndex);
  // Workflow tools and connected tool sub-nodes were chosen by the workflow builder: defining one allows it.
  const subExecutions: RelatedExecution[] = [];
  const readOnlyNames = String(options.readOnlyTools ?? '');
  const readOnly = new Set(readOnlyNames.split(',').map((name) => name.trim()).filter(Boolean));
  const extraTools = [...readWorkflowTools(context, itemIndex, subExecutions, readOnly), ...(await readConnectedTools(context, itemIndex, readOnly))];
  config.allowed_tools = [...(config.allowed_tools ?? []), ...extraTools.map((tool) => tool.name)];
  const approval = await readApproval(context, itemIndex);
  config.approval_required = approval.tools;
  if (approval.maxAgeDays !== undefined) config.run_state_max_age_days = approval.maxAgeDays;
  const stream = openItemStream(context, itemIndex, options);
  const common = {
    model,
    fallbackModel,
    extraTools,
    ...(config.shared_budget ? { budgetLedger: await ledger.forItem(context, itemIndex) } : {}),
    secrets: [...secrets, ...(approval.stateSecret ? [approval.stateSecret] : [])],
    config,
    stateSecret: approval.stateSecret,
    sessionId: sessionId || undefined,
    signal: context.getExecutionCancelSignal?.(),
    onEvent: stream?.onEvent,
    ...(await readAudit(context, itemIndex)),
    ...runTracer(),
  };
  const result = await (resuming ? resumeAgent({ ...common, ...readResume(context, itemIndex), usedStates: await usedStates.forItem(context) }) : runAgent({ ...common, ...readInput(context, itemIndex) })).finally(() =>
    stream?.close(),
  );
  started.push(...subExecutions);
  // A connected chat model's own tracing records its calls; the credential mode records them here.
  const tokens = provider === 'connected' ? {} : recordAiCalls(context, result);
  // The editor links an item to the last execution its workflow tools started, as for n8n's Workflow Tool.
  const linked = subExecutions.length ? { metadata: { subExecution: subExecutions[subExecutions.length - 1] } } : {};
  const failure = runFailureError(context, result, readFailurePolicy(options), itemIndex);
  if (failure) {
    if (!context.continueOnFail()) throw failure;
    // n8n moves an item to the error output only when its json is { error } alone (and replaces the json of
    // an item carrying `error` with just the message), so the run's details ride only on the regular output.
    const json = context.getNode().onError === 'continueErrorOutput' ? { error: failure.message } : failedRunJson(result, failure, sessionId);
    return { json, pairedItem: { item: itemIndex }, ...linked };
  }
  // `output` is the field n8n's Chat Trigger and Chat Hub show as the reply.
  const json = { ...result, output: result.final_answer, ...(sessionId ? { session_id: sessionId } : {}), ...tokens };
  return { json: json as unknown as IDataObject, pairedItem: { item: itemIndex }, ...linked };
}

/** Operation → Run: the user's request, as a prompt or a conversation, and the workflow's instructions. */
function readInput(context: IExecuteFunctions, itemIndex: number): { prompt?: string; messages?: unknown; developerText: string } {
  const inputMode = context.getNodeParameter('inputMode', itemIndex) as 'prompt' | 'messages';
  return {
    prompt: inputMode === 'prompt' ? (readField(context, 'prompt', itemIndex) as string) : undefined,
    messages: inputMode === 'messages' ? context.getNodeParameter('messagesJson', itemIndex) : undefined,
    developerText: context.getNodeParameter('developerText', itemIndex, '') as string,
  };
}

/**
 * One output item per input item, each paired with its input; continueOnFail() turns errors into items.
 * With Require Approval, a run that waits for a person leaves by the Needs Approval output.
 */
export async function agentCoreExecute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const state: ExecutionState = { started: [], ledger: new ExecutionLedger(), usedStates: new ExecutionUsedStates() };
  const options = this.getNodeParameter('options', 0, {}) as IDataObject;
  const batching = { size: Number(options.batchSize ?? 1), delayMs: Number(options.delayBetweenBatches ?? 0) };
  const items = await mapItems(this, (itemIndex) => runItem(this, itemIndex, state), batching).finally(() => Promise.all([state.ledger.close(), state.usedStates.close()]));
  const { started } = state;
  if (started.length > 0) this.setMetadata({ subExecution: started[started.length - 1], subExecutionsCount: started.length });
  return routeByApproval(items, this.getNodeParameter('needsApproval', 0, false) === true);
}
