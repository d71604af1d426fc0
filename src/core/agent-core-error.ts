// The engine's one error family: bad input or a failed dependency, naming the field to fix and how to fix it.

/** What an AgentCoreError says besides its message. */
export interface ErrorFacts {
	/**
	 * What to fix, in the engine's words: a config key (`max_steps`, `tool_settings.http_request`), an input
	 * (`prompt`, `messages_json`), `run_state`, `redis`, a CLI flag (`--stream-answer`).
	 */
	field: string;
	/** How to fix it: one sentence in the engine's words. Where it names the field, it names it as `field` is written. */
	fix: string;
	/**
	 * The message already says how to fix it in its own words, as the messages of a class may be written to: a
	 * surface that shows the message then need not repeat the fix. Absent: it does when it contains the fix.
	 */
	fixInMessage?: boolean;
	cause?: unknown;
}

/**
 * An error the user can fix: bad input (config, prompt, run state, a flag) or a dependency that failed (Redis,
 * the audit database). The node and the CLI each translate it in one place: the message as it is, the fix
 * with the field under the surface's own name for it (`fixNaming`).
 */
export class AgentCoreError extends Error {
	override readonly name: string = 'AgentCoreError';
	readonly field: string;
	readonly fix: string;
	readonly #fixInMessage: boolean | undefined;

	constructor(message: string, facts: ErrorFacts) {
		super(message, 'cause' in facts ? { cause: facts.cause } : undefined);
		this.field = facts.field;
		this.fix = facts.fix;
		this.#fixInMessage = facts.fixInMessage;
	}

	/** Whether the message already says what `fix` says, so that the fix adds nothing to it. */
	get messageSaysFix(): boolean {
		return (
			this.#fixInMessage ??
			this.message.toLowerCase().includes(this.fix.replace(/\.$/, '').toLowerCase())
		);
	}

	/**
	 * The fix with the field under another name: a surface's own (the panel's "Options → Max Iterations", a CLI
	 * flag). Replaces the fix's first mention of the field as a whole word; a fix that does not name it is as it is.
	 */
	fixNaming(name: string): string {
		const escaped = this.field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		return this.fix.replace(new RegExp(`(?<![\\w.-])${escaped}(?![\\w-]|\\.\\w)`), () => name);
	}
}

/** The usual fix of an error whose field has a value to change. */
export const correctValueFix = (field: string): string => `Correct the value of ${field}.`;
