// Agent Core's version 1 panel, its model fields: the provider, the model and the fallback model that takes over.
import type { INodeProperties } from 'n8n-workflow';

/** Provider, Model, and Enable Fallback Model with where the fallback comes from (version 1, kept as it was). */
export const modelProperties: INodeProperties[] = [
	{
		displayName: 'Provider',
		name: 'provider',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'OpenAI or OpenAI-Compatible', value: 'openai' },
			{ name: 'Google Gemini', value: 'gemini' },
			{
				name: 'Connected Chat Model',
				value: 'connected',
				description:
					'Any n8n chat model sub-node (OpenAI, Anthropic, Gemini, Ollama, …) connected to the Chat Model input, with its own credential and settings',
			},
		],
		default: 'openai',
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The model to run. Pick one the endpoint lists, or type any model ID.',
		displayOptions: { hide: { provider: ['connected'] } },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchModels', searchable: true },
			},
			{ displayName: 'ID', name: 'id', type: 'string', placeholder: 'e.g. gpt-4o-mini' },
		],
	},
	{
		displayName: 'Enable Fallback Model',
		name: 'needsFallback',
		type: 'boolean',
		default: false,
		noDataExpression: true,
		description:
			'Whether a second model takes over when a model call fails after its retries or ' +
			'times out: it answers that step and the rest of the run, and no tool runs twice',
	},
	{
		displayName: 'Fallback From',
		name: 'fallbackSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Fallback Model Input',
				value: 'input',
				description:
					'Any chat model sub-node connected to the Fallback Model input, with its own credential: another provider or another account',
			},
			{
				name: 'This Credential, Another Model',
				value: 'credential',
				description: 'Another model of the same endpoint and key, e.g. a smaller one',
			},
		],
		default: 'input',
		displayOptions: { show: { needsFallback: [true], provider: ['openai', 'gemini'] } },
	},
	{
		displayName: 'Fallback Model',
		name: 'fallbackModel',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description:
			'The model that takes over, on the same credential. Pick one the endpoint lists, or type any model ID.',
		displayOptions: {
			show: {
				needsFallback: [true],
				fallbackSource: ['credential'],
				provider: ['openai', 'gemini'],
			},
		},
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchModels', searchable: true },
			},
			{ displayName: 'ID', name: 'id', type: 'string', placeholder: 'e.g. gpt-4.1-mini' },
		],
	},
];
