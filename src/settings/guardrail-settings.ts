// The built-in guardrails (issue #50): a row of the settings table (settings.ts spreads it in), declared once here.
import { loadOnce } from '../core/load-once';
import type { Guardrail } from '../guardrails';
import type { Check } from './setting-checks';
import type { Setting } from './setting-types';

/**
 * The list checked entry by entry: a problem throws the guardrails' own ConfigError, which names the entry and
 * field (`guardrails[2].kinds[0]`) and the fix, instead of one sentence about the whole key.
 */
const guardrails = ((value: unknown) => {
	if (Array.isArray(value) && value.length === 0) return undefined;
	built().checkGuardrails(value);
	return undefined;
}) as Check<Guardrail[]>;

/** The guardrails' checks, loaded when a config with guardrails is first checked: the panels read this table without them. */
const built = loadOnce(() => require('../guardrails') as typeof import('../guardrails'));

export const GUARDRAIL_SETTINGS = {
	/** Checks that need no model, run at the run's hook points: see src/guardrails and src/agent/hooks. */
	guardrails: {
		default: [],
		check: guardrails,
		meaning:
			'`[{name, check, on, action, …}]`: built-in guardrails — `pii`, `secrets`, `urls`, `pattern` or `keywords` ' +
			'checked on the `input`, each `tool_call`, each `observation` or the `answer`, to `block` the run, ' +
			'`redact` what they find or `deny_call` (see *Hooks and guardrails*)',
		panel: {
			collection: 'options',
			name: 'guardrails',
			displayName: 'Guardrails',
			type: 'json',
			since: 2,
			builtByNode: true,
			description:
				'Checks that need no model, as a JSON list: e.g. [{"name":"no-cards","check":"pii","kinds":["credit_card"],"on":["tool_call","answer"],"action":"block"}]',
		},
	},
} satisfies Record<string, Setting>;
