// The Agent Core Tool's panel (issue #52): n8n's AI Agent Tool's fields, with Agent Core version 2's model and limits.
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';
import { nodeOptions } from '../../AgentCore/panel/options';
import { collectionProperties } from '../../AgentCore/panel/settings';
import { agentCorePropertiesV2 } from '../../AgentCore/V2/description';

/** The tool's one argument by default: the task, in the words the engine's sub-agents use (TASK_SCHEMA). */
export const TASK_PROMPT =
	"={{ $fromAI('task', 'The whole task for this agent, in words: it sees only this, not your conversation', 'string') }}";

/** Version 2's entry of that name, copied: the model fields are Agent Core's, read by the same code (readModels). */
const fromAgentCore = (name: string): INodeProperties[] =>
	agentCorePropertiesV2
		.filter((property) => property.name === name)
		.map((property) => structuredClone(property));

type CollectionEntry = INodeProperties | INodePropertyOptions | INodePropertyCollection;
const shownName = (entry: CollectionEntry) =>
	'displayName' in entry ? entry.displayName : entry.name;

/** The entries of version 2's collection `collection` named `names`, as version 2 shows them. */
function entriesOf(collection: string, names: ReadonlySet<string>): CollectionEntry[] {
	const entries =
		agentCorePropertiesV2.find((property) => property.name === collection)?.options ?? [];
	return entries.filter((entry) => names.has(entry.name)).map((entry) => structuredClone(entry));
}

/** The limits of version 2's Options and Budgets (the settings table's `limits`), Max Sub-Agent Depth and the System Message. */
const LIMITS = new Set(collectionProperties('limits', [], 2).map((property) => property.name));
const optionEntries = [
	...entriesOf('options', new Set([...LIMITS, 'developerText', 'maxAgentDepth'])),
	...entriesOf('budgets', LIMITS),
	{
		...nodeOptions.find((property) => property.name === 'readOnlyTools')!,
		description:
			'Names of the tool sub-nodes on the Tool input that only read, comma-separated. Any other is taken to change ' +
			'things, and so is this agent: under Agent Core it counts as read-only only when every tool it may call does.',
	},
	{
		displayName: 'Tools Needing Approval',
		name: 'approvalTools',
		type: 'string',
		default: '',
		placeholder: 'e.g. send_email',
		description:
			'Tools whose calls wait for a person, comma-separated. Only Agent Core as the parent can pause for one (with ' +
			'Require Approval on); under n8n’s AI Agent the call ends and its answer says it waits for a person.',
	} as INodeProperties,
].sort((first, second) => shownName(first).localeCompare(shownName(second)));

/** The panel: Description and Prompt first (n8n's AI Agent Tool's), then Provider, the fallback, Allowed Tools and Options. */
export const agentCoreToolProperties: INodeProperties[] = [
	{
		displayName:
			'Connect this tool to Agent Core’s Tool input to run it inside that run’s budget, with its steps under the call; ' +
			'under n8n’s AI Agent it runs on its own limits',
		name: 'parentNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 2 },
		placeholder:
			'e.g. Researches a company on the web and answers with a short summary and its sources',
		description:
			'What the parent model reads to decide when to call this agent: what it does and what to give it',
	},
	{
		displayName: 'Prompt (User Message)',
		name: 'text',
		type: 'string',
		default: TASK_PROMPT,
		required: true,
		typeOptions: { rows: 2 },
		description:
			'What this agent is asked. By default the task the parent model writes ($fromAI). A prompt of other words ' +
			'around it runs the agent with its own limits under Agent Core too.',
	},
	...fromAgentCore('provider'),
	...fromAgentCore('model'),
	...fromAgentCore('needsFallback'),
	...fromAgentCore('fallbackSource'),
	...fromAgentCore('fallbackModel'),
	...fromAgentCore('allowedTools').map((property) => ({
		...property,
		description:
			'Built-in tools this agent may call, besides the tool sub-nodes on its Tool input (which it may call all of)',
	})),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: optionEntries,
	},
];
