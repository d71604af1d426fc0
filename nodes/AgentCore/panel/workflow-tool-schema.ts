// The Arguments Schema a new workflow tool starts with (the panel's default, and the run's when the row has none).

/** One string argument, `query`: what most lookup workflows take. */
export const DEFAULT_WORKFLOW_ARGS_SCHEMA = JSON.stringify(
	{
		type: 'object',
		properties: { query: { type: 'string', description: 'What to look up' } },
		required: ['query'],
		additionalProperties: false,
	},
	null,
	2,
);
