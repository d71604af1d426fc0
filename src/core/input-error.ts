// The error of bad run input (prompt, messages): its `field` names what to fix; thrown by the engine and the context store alike.
import { AgentCoreError, correctValueFix } from './agent-core-error';

/** Bad run input (prompt / messages); `field` names it and the message says how to fix it (or `fix`, when given). */
export class InputError extends AgentCoreError {
	override readonly name = 'InputError';
	constructor(
		/** `prompt`, `messages_json`, or another input field such as the persisted `messages`. */
		field: string,
		message: string,
		fix?: string,
	) {
		super(
			message,
			fix === undefined
				? { field, fix: correctValueFix(field), fixInMessage: true }
				: { field, fix },
		);
	}
}
