// A limit's sentence in the words of the panel the user set it in (issue #41): "used all 1 of its Max Iterations (Options)".
import { SETTINGS, type AgentConfig, type FinishReason } from '../../../../src/run-path';
import { panelName } from '../../panel/names';

/** The finish reasons that are one setting run out, and the setting (with the unit its value is counted in). */
const LIMITS: Partial<Record<FinishReason, { key: keyof AgentConfig; unit?: string }>> = {
	max_steps: { key: 'max_steps' },
	max_tool_calls: { key: 'max_tool_calls' },
	token_budget: { key: 'total_token_budget', unit: 'tokens' },
};

/**
 * Why a run that hit one of its limits gave no answer, naming the field as this node version's panel does and
 * the value it was set to, with the fix: "the agent used all 1 of its Max Iterations (Options); raise it".
 * Undefined for any other ending (the engine's sentence stands).
 */
export function limitWords(
	reason: FinishReason,
	config: Partial<AgentConfig>,
	version: number,
): string | undefined {
	const limit = LIMITS[reason];
	// A field the panel left unset runs at the setting's default, the value the run really had.
	const value =
		limit && (config[limit.key] ?? (SETTINGS[limit.key] as { default?: unknown }).default);
	if (!limit || typeof value !== 'number') return undefined;
	const place = panelName(limit.key, version).split(' → ');
	const name = place.pop();
	const where = place.length ? ` (${place.join(' → ')})` : '';
	return `the agent used all ${value}${limit.unit ? ` ${limit.unit}` : ''} of its ${name}${where}; raise it`;
}
