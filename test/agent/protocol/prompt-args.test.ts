// How a tool's args schema reads in the system prompt: a signature where it says everything, else JSON Schema.
import { argsText } from '../../../src/agent/protocol/protocol-schema';
import { validateAgainst } from '../../../src/validation/validate';

describe('tool args in the prompt', () => {
	it('writes an object of plain-typed properties as a signature, optional ones marked with ?', () => {
		expect(
			argsText({
				type: 'object',
				properties: { id: { type: 'string' }, limit: { type: 'integer' } },
				required: ['id'],
				additionalProperties: false,
			}),
		).toBe('{"id": string, "limit"?: integer}');
		expect(argsText({ type: 'object', properties: { input: { type: 'string' } } })).toBe(
			'{"input"?: string}',
		);
		expect(argsText({ type: 'object', properties: {} })).toBe('{}');
	});

	it('sends the JSON Schema whenever a signature would drop something the model must know', () => {
		const shown = (schema: Record<string, unknown>) => argsText(schema);
		const withEnum = {
			type: 'object',
			properties: { unit: { type: 'string', enum: ['c', 'f'] } },
			required: ['unit'],
		};
		expect(shown(withEnum)).toBe(JSON.stringify(withEnum));
		const described = {
			type: 'object',
			properties: { who: { type: 'string', description: 'Full name' } },
		};
		expect(shown(described)).toBe(JSON.stringify(described));
		const nested = { type: 'object', properties: { data: { type: 'object' } } };
		expect(shown(nested)).toBe(JSON.stringify(nested));
		const bounded = {
			type: 'object',
			properties: { who: { type: 'string', minLength: 1 } },
			additionalProperties: false,
		};
		expect(shown(bounded)).toBe(
			'{"type":"object","properties":{"who":{"type":"string","minLength":1}}}',
		);
		const typedExtras = {
			type: 'object',
			properties: {},
			additionalProperties: { type: 'number' },
		};
		expect(shown(typedExtras)).toBe(JSON.stringify(typedExtras));
		const requiredUnknown = { type: 'object', properties: {}, required: ['ghost'] };
		expect(shown(requiredUnknown)).toBe(JSON.stringify(requiredUnknown));
	});

	it('leaves validation whole: an extra property the signature does not show still gets a precise error', () => {
		const schema = {
			type: 'object',
			properties: { id: { type: 'string' } },
			required: ['id'],
			additionalProperties: false,
		};
		expect(argsText(schema)).toBe('{"id": string}');
		expect(validateAgainst(schema, { id: 'a', extra: 1 })).toEqual({
			ok: false,
			issues: ['args: unknown property "extra" is not allowed'],
		});
	});
});
