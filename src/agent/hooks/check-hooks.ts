// The `hooks` run option checked before anything is opened: a typo in a method's name is not a hook that never runs.
import { InputError } from '../../core/input-error';
import { nearMiss } from '../../core/known-options';
import { HOOK_METHODS, type AgentHook } from '../base/hook-types';

const KEYS = ['name', ...Object.values(HOOK_METHODS)];
/** More hooks than any chain needs: each runs at every point it has. */
export const MAX_HOOKS = 50;

/** The hooks given, checked: a list of objects with known methods (functions) and an optional name. */
export function checkHooks(hooks: unknown): readonly AgentHook[] {
	if (hooks === undefined) return [];
	if (!Array.isArray(hooks))
		throw new InputError('hooks', 'hooks must be a list of hook objects, e.g. [{ beforeTool }]');
	if (hooks.length > MAX_HOOKS)
		throw new InputError('hooks', `hooks holds ${hooks.length} hooks, more than ${MAX_HOOKS}`);
	hooks.forEach((hook, index) => {
		const at = `hooks[${index}]`;
		if (typeof hook !== 'object' || hook === null || Array.isArray(hook))
			throw new InputError(at, `${at} must be an object with any of ${KEYS.join(', ')}`);
		for (const key of Object.keys(hook)) {
			const value = (hook as Record<string, unknown>)[key];
			if (!KEYS.includes(key)) {
				const near = nearMiss(key, KEYS);
				throw new InputError(
					`${at}.${key}`,
					`${at} has "${key}", which is not a hook point${near ? `: did you mean ${near}?` : ''} (a hook takes ${KEYS.join(', ')})`,
				);
			}
			if (key === 'name' ? typeof value !== 'string' : typeof value !== 'function')
				throw new InputError(
					`${at}.${key}`,
					`${at}.${key} must be ${key === 'name' ? 'text' : 'a function'}`,
				);
		}
	});
	return hooks as AgentHook[];
}
