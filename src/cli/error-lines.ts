// How the CLI prints an error: the engine's family as its message and, where it adds to it, its fix; anything else as unexpected.
import { RUN_OPTION_SETTINGS } from '../settings/settings';
import { AgentCoreError } from '../core/agent-core-error';

/** The CLI's names of fields that are not config keys (config keys keep their names: they are written in --config). */
const FIELD_NAMES: Record<string, string> = {
	config: '--config file',
	redis: '--redis-url',
	session_id: '--session',
	to_session: '--to-session',
	turn: '--turn',
	busy: '--busy',
	context_scope: '--context-scope',
	...Object.fromEntries(
		Object.entries(RUN_OPTION_SETTINGS).map(([option, setting]) => [
			option,
			`--${setting.cliFlag}`,
		]),
	),
};

/**
 * What the CLI writes to stderr for an error that ended it, and its exit status: an AgentCoreError (bad input,
 * a failed dependency) exits 2 with its message and, when the message does not already say it, a `fix:` line
 * naming the field as the CLI does; any other error is an unexpected failure, exit 1.
 */
export function errorReport(error: unknown): { text: string; code: 1 | 2 } {
	if (!(error instanceof AgentCoreError)) {
		return {
			text: `agent-core: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
			code: 1,
		};
	}
	const name = Object.hasOwn(FIELD_NAMES, error.field) ? FIELD_NAMES[error.field] : error.field;
	return {
		text: `agent-core: ${error.message}\n${error.messageSaysFix ? '' : `  fix: ${error.fixNaming(name)}\n`}`,
		code: 2,
	};
}
