// The flags of `agent-core run` and `agent-core resume`, as parseArgs options: both commands read the same set.
import { PROVIDER_FLAGS, SETTING_FLAGS, integerOption } from './flags';

/** Audit rows are kept at most a century: a longer retention keeps every row the database holds anyway. */
const MAX_RETENTION_DAYS = 36_500;

/** run's and resume's options (resume refuses run's own, and run resume's, after parsing). */
export const RUN_FLAGS = {
	config: { type: 'string' },
	prompt: { type: 'string' },
	file: { type: 'string', multiple: true },
	'messages-json': { type: 'string' },
	...PROVIDER_FLAGS,
	...SETTING_FLAGS,
	session: { type: 'string' },
	context: { type: 'string' },
	'context-scope': { type: 'string' },
	'workflow-id': { type: 'string' },
	busy: { type: 'string' },
	window: { type: 'string' },
	'redis-url': { type: 'string' },
	'run-key': { type: 'string' },
	stream: { type: 'boolean' },
	'stream-answer': { type: 'string' },
	state: { type: 'string' },
	approve: { type: 'boolean' },
	deny: { type: 'string' },
	edit: { type: 'string' },
	decisions: { type: 'string' },
	'audit-postgres': { type: 'string' },
	'audit-retention-days': integerOption({
		min: 1,
		max: MAX_RETENTION_DAYS,
		meaning: 'how many days audit rows are kept',
	}),
} as const;
