// The configuration's error, on the ground floor so that every layer that checks a setting can throw it.
import { AgentCoreError, correctValueFix } from './agent-core-error';

/**
 * A configuration problem; `key` (also `field`) names the offending key and the message says what is expected,
 * which is the fix unless a `fix` of its own says more.
 */
export class ConfigError extends AgentCoreError {
	override readonly name = 'ConfigError';
	constructor(
		readonly key: string,
		message: string,
		fix?: string,
	) {
		super(
			message,
			fix === undefined
				? { field: key, fix: correctValueFix(key), fixInMessage: true }
				: { field: key, fix },
		);
	}
}
