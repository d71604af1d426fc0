// A JSON field of the panel (Tool Settings, Output Schema, Guardrails) read as a value, or an error naming the field.
import type { IExecuteFunctions } from 'n8n-workflow';
import { nodeError } from '../../../shared/node-errors';

/** A JSON field's value: parsed when it is text, as it is when an expression already gave an object. */
export function readJsonValue(
	context: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
	label: string,
): unknown {
	if (typeof value !== 'string') return value;
	if (value.trim() === '') return undefined;
	try {
		return JSON.parse(value);
	} catch (error) {
		throw nodeError(
			context,
			`${label} is not valid JSON: ${(error as Error).message}`,
			itemIndex,
			'Fix the JSON in that field, or use an expression that returns an object.',
		);
	}
}
