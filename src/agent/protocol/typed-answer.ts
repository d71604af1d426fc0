import { validateAgainst, type JsonSchema } from '../../validation/validate';
import { nestsTooDeep } from './protocol';

/** A final answer as the run reports it, or why it does not match `output_schema`, written for the model. */
export type CheckedAnswer =
	| { ok: true; text: string; value?: unknown }
	| { ok: false; message: string };

/**
 * The final answer against the run's `output_schema`. Without one the answer is the protocol's string.
 * With one, the answer is a JSON value checked by ajv; a string that holds JSON text is read as that value
 * when the string itself does not match (models often put an object into the string). The mismatch
 * message lists `path: problem` lines, e.g. `answer.total: must be number`.
 */
export function checkAnswer(answer: unknown, schema: JsonSchema | undefined): CheckedAnswer {
	if (!schema) return { ok: true, text: answer as string };
	const direct = validateAgainst(schema, answer, 'answer');
	if (direct.ok) return matched(answer);
	const parsed = typeof answer === 'string' ? parseJsonText(answer) : undefined;
	const issues = parsed ? validateAgainst(schema, parsed.value, 'answer') : direct;
	if (issues.ok) return matched(parsed!.value);
	return {
		ok: false,
		message: `Your final answer does not match the output schema:\n${issues.issues.join('\n')}\nSend the final object again with an "answer" that matches it.`,
	};
}

/** The value as `final_output`, and as text: a string as it is, anything else as its JSON text. */
function matched(value: unknown): CheckedAnswer {
	return { ok: true, value, text: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** The string's JSON value; none when it is not JSON, or nests deeper than a reply may. */
function parseJsonText(text: string): { value: unknown } | undefined {
	if (nestsTooDeep(text)) return undefined;
	try {
		return { value: JSON.parse(text) };
	} catch {
		return undefined;
	}
}
