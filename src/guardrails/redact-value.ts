/**
 * A value (a tool call's args) with every find of a guardrail redacted: a copy, keys and strings alike, each find
 * replaced by `[redacted:<name>]` (a number found becomes that text). Walked with an explicit stack: any depth.
 */
import { findMatches, redactMatches, valueFinds } from './find';
import type { Guardrail } from './types';
import { SECRET_KEY } from '../trace/secret-shapes';

interface Frame {
	source: object;
	copy: unknown[] | Record<string, unknown>;
	keys: string[] | undefined;
	next: number;
}

/** `value` as it would be with `guardrail`'s finds redacted; the value itself is not changed. */
export function redactInValue<T>(guardrail: Guardrail, value: T): T {
	const seen = new Map<object, unknown>();
	const stack: Frame[] = [];
	const copyOf = (item: unknown, secretField: boolean): unknown => {
		if (typeof item === 'string' || typeof item === 'number') {
			const text = String(item);
			const matches = valueFinds(guardrail, {
				at: { parent: undefined, step: 0 },
				in: 'value',
				text,
				secretField,
			});
			return matches.length === 0 ? item : redactMatches(text, matches, guardrail.name);
		}
		if (typeof item !== 'object' || item === null) return item;
		// A container met again (shared, or a cycle) is the copy made of it, as JSON args have neither.
		if (seen.has(item)) return seen.get(item);
		const copy = Array.isArray(item) ? [] : {};
		seen.set(item, copy);
		stack.push({
			source: item,
			copy,
			keys: Array.isArray(item) ? undefined : Object.keys(item),
			next: 0,
		});
		return copy;
	};
	const root = copyOf(value, false);
	while (stack.length > 0) {
		const frame = stack[stack.length - 1];
		const length = frame.keys ? frame.keys.length : (frame.source as unknown[]).length;
		if (frame.next >= length) {
			stack.pop();
			continue;
		}
		const index = frame.next;
		frame.next += 1;
		if (!frame.keys) {
			(frame.copy as unknown[]).push(copyOf((frame.source as unknown[])[index], false));
			continue;
		}
		const key = frame.keys[index];
		const item = copyOf((frame.source as Record<string, unknown>)[key], SECRET_KEY.test(key));
		const matches = findMatches(guardrail, key);
		let name = matches.length === 0 ? key : redactMatches(key, matches, guardrail.name);
		for (let suffix = 2; Object.hasOwn(frame.copy, name); suffix += 1)
			name = `${redactMatches(key, matches, guardrail.name)} #${suffix}`;
		// defineProperty: `__proto__` and the like stay own data keys, as JSON.parse makes them.
		Object.defineProperty(frame.copy, name, {
			value: item,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return root as T;
}
