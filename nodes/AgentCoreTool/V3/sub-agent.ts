// The Agent Core Tool's agent (issue #52): read from its panel and inputs, and run on its own when the parent is not Agent Core.
import { randomBytes } from 'node:crypto';
import {
	nodeNameToToolName,
	type IDataObject,
	type IExecuteFunctions,
	type ISupplyDataFunctions,
} from 'n8n-workflow';
import {
	rememberedRun,
	runAgent,
	type AgentResult,
	type ProviderName,
	type SubAgentSpec,
	type Tool,
} from '../../../src/run-path';
import { readConnectedTools } from '../../AgentCore/execute/inputs/connected-tools';
import { readModels } from '../../AgentCore/execute/inputs/read-run';
import { configFromPanel } from '../../AgentCore/panel/settings';
import { nodeError } from '../../shared/node-errors';
import { openSubAgentMemory } from './memory';

/** The node's agent: what Agent Core as the parent runs as its sub-agent, and what runs on its own under another parent. */
export type NodeSubAgent = SubAgentSpec & {
	config: Record<string, unknown> & {
		model: string;
		allowed_tools: string[];
		approval_required: string[];
	};
	model: NonNullable<SubAgentSpec['model']>;
	tools: Tool[];
};

/** What to write in an empty Description. */
const DESCRIPTION_FIX =
	'say what this agent does and what to give it: the parent model reads it to decide when to call it';

/** The names in a comma-separated field. */
const namesIn = (field: unknown) =>
	new Set(
		String(field ?? '')
			.split(',')
			.map((name) => name.trim())
			.filter(Boolean),
	);

/** The tool's name: the node's, as n8n names a node used as a tool, starting with a letter as a sub-agent's must. */
export function subAgentName(nodeName: string): string {
	const name = nodeNameToToolName(nodeName);
	return (/^[A-Za-z]/.test(name) ? name : `agent_${name}`).slice(0, 64);
}

/**
 * The agent of item `itemIndex`: Description, System Message, Allowed Tools and the limits of Options from the panel,
 * the models and tools from its own Chat Model, Fallback Model and Tool inputs (read as Agent Core reads its own:
 * n8n gives a sub-node's supplyData the same reads as an execute).
 */
export async function readSubAgent(
	from: IExecuteFunctions | ISupplyDataFunctions,
	itemIndex: number,
): Promise<NodeSubAgent> {
	const context = from as IExecuteFunctions;
	const description = String(
		context.getNodeParameter('toolDescription', itemIndex, '') ?? '',
	).trim();
	if (!description)
		// The fix in the message as well: n8n reports a sub-node's error to its parent with the message alone.
		throw nodeError(
			context,
			`Description is empty: ${DESCRIPTION_FIX}`,
			itemIndex,
			`${DESCRIPTION_FIX[0].toUpperCase()}${DESCRIPTION_FIX.slice(1)}.`,
		);
	const provider = context.getNodeParameter('provider', itemIndex) as ProviderName | 'connected';
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { model, modelName, fallbackModel } = await readModels(
		context,
		itemIndex,
		provider,
		options,
	);
	const tools = await readConnectedTools(context, itemIndex, namesIn(options.readOnlyTools));
	const builtIns = context.getNodeParameter('allowedTools', itemIndex, []) as string[];
	const system = String(options.developerText ?? '').trim();
	const name = subAgentName(context.getNode().name);
	const memory = await openSubAgentMemory(context, itemIndex, name);
	return {
		name,
		description,
		...(system ? { system } : {}),
		// Options holds version 2's limits, its Budgets' among them: read as version 2 places each.
		config: {
			model: modelName,
			allowed_tools: [...builtIns, ...tools.map((tool) => tool.name)],
			approval_required: [...namesIn(options.approvalTools)],
			...configFromPanel(2, { options, budgets: options }),
		},
		model,
		...(fallbackModel ? { fallbackModel } : {}),
		tools,
		...(memory ? { memory } : {}),
	};
}

/**
 * The agent's run on `prompt` with its own limits (under n8n's AI Agent, or with a Prompt of its own), from and into its
 * own conversation when it has a Memory input: its answer in words.
 */
export async function runOnItsOwn(
	agent: NodeSubAgent,
	prompt: string,
	signal?: AbortSignal,
): Promise<string> {
	const { result, unsaved } = await rememberedRun(
		agent.memory,
		prompt,
		(messages) =>
			runAgent({
				// No parent here can resume a paused run: a call that waits for a person ends (answerOf says so), its state
				// signed with a key made for this run alone and forgotten with it.
				...(agent.config.approval_required.length
					? { stateSecret: randomBytes(48).toString('base64url') }
					: {}),
				model: agent.model,
				...(agent.fallbackModel ? { fallbackModel: agent.fallbackModel } : {}),
				config: agent.config,
				prompt,
				...(messages ? { messages } : {}),
				...(agent.system ? { developerText: agent.system } : {}),
				extraTools: agent.tools,
				...(signal ? { signal } : {}),
			}),
		// Nor its turn kept back for a resume that never comes: saved as it ended.
		{ resumable: false },
	);
	if (unsaved) throw unsaved;
	return answerOf(agent.name, result);
}

/**
 * What the parent model reads: the final answer; for a run that waits for a person, that it waits and what approvals
 * need (a parent that can pause: Agent Core); for any other ending, why there is no answer, as Agent Core's parent says it.
 */
export function answerOf(name: string, result: AgentResult): string {
	if (result.finish_reason === 'final') return result.final_answer;
	if (result.finish_reason === 'awaiting_approval')
		return (
			`${name} did not answer: its call waits for a person to approve it, and this parent cannot pause for one. ` +
			`Approvals need Agent Core as the parent: connect ${name} to Agent Core's Tool input and turn on Require Approval there.`
		);
	const why = result.stop_detail ? `: ${result.stop_detail}` : '';
	return `${name} did not answer (finish_reason ${result.finish_reason})${why}`;
}
