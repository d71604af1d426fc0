// The shape of a settings-table row: engine facts (default, check, meaning) and panel facts as plain data.
import type { Check } from './setting-checks';

/** One choice of an options field in the panel. */
export interface PanelChoice {
	name: string;
	value: string;
	description?: string;
}

/**
 * Where and how a setting shows in the node's panel: plain data, which nodes/ turns into n8n properties. Number
 * fields take their minimum from the setting's check unless `typeOptions` says otherwise.
 */
export interface PanelFacts {
	/** The collection it is added from, or the panel's top level. */
	collection: 'limits' | 'options' | 'top';
	/** The parameter's name in workflows; never renamed in a published version. */
	name: string;
	displayName: string;
	type: 'number' | 'options' | 'multiOptions' | 'string' | 'json' | 'resourceLocator' | 'boolean';
	description?: string;
	/** The panel's default, where it differs from the engine's (an option the engine leaves unset is sent only when added). */
	default?: number | string | boolean;
	typeOptions?: { minValue?: number; maxValue?: number; numberPrecision?: number };
	choices?: readonly PanelChoice[];
	/** A panel value that means "unset": the provider's default applies. */
	unsetValue?: number | string;
	/** The toggle or option that shows it, for README (e.g. "Require Approval"). */
	shownWith?: string;
	/** The node builds this entry and reads its value itself (choices known only there, a toggle, JSON): these facts name it. */
	builtByNode?: true;
	/**
	 * The first node version whose panel shows it (absent: 1). A published version's panel never changes, so a
	 * setting added later names the version it arrives in; older versions run with its default.
	 */
	since?: number;
	/** The value node versions before `since` run with, where it is not the engine's default (their behaviour is frozen). */
	olderVersions?: number | string | boolean;
	/** A limit that node version 2 groups under Governance → Budgets (a token or cost budget) instead of Options. */
	budget?: true;
}

/**
 * One setting: how the config key is checked and defaulted, what it means, and its names in the panel and the
 * CLI. The key's type is the type its check accepts; a test holds each default to its check.
 */
export interface Setting {
	/** Absent: the key is optional (the provider's or the engine's own behaviour applies), or required (`required`). */
	default?: unknown;
	required?: true;
	check: Check;
	/** README's wording, in its configuration table. */
	meaning: string;
	panel?: PanelFacts;
	/** Names in the panel beyond one field (a setting the node assembles from several). */
	panelLabel?: string;
}
