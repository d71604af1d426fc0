import { AgentCoreError } from '../core/agent-core-error';

/** A JSON Schema the engine refuses to use, naming whose schema it is (`field`) and how to fix it; the message says both. */
export class SchemaError extends AgentCoreError {
	override readonly name = 'SchemaError';
	constructor(
		/** Whose schema: `output_schema`, `tool "lookup"`, … */
		field: string,
		/** What is wrong, as a predicate with the path inside the schema ("has $ref \"#\" at / that …"). */
		readonly problem: string,
		/** What to change. */
		fix: string,
	) {
		super(`${field} ${problem}. ${fix}`, { field, fix });
	}
}
