// Where each setting sits in each node version's panel, derived from its settings-table row: names and places, one home.
import type { PanelFacts, Setting } from '../../../src/panel';

/**
 * Version 2 shows some of version 1's fields under n8n's names for the same meaning; the parameter names in
 * workflows stay version 1's, so only the label changes (and the settings table keeps the engine's words).
 */
export const VERSION_2_DISPLAY_NAMES: Readonly<Record<string, string>> = {
	developerText: 'System Message',
	maxSteps: 'Max Iterations',
	streamResponse: 'Enable Streaming',
};

/**
 * Top-level fields of version 1 that version 2 keeps inside its Options collection (same parameter name),
 * and the collections whose fields it regroups: Limits into Options and Budgets, the batch fields into
 * Options → Batch Processing, Output Format into the Require Specific Output Format toggle.
 */
export const MOVED_INTO_OPTIONS = [
	'developerText',
	'sessionId',
	'toolSettingsJson',
	'workflowTools',
] as const;

/** Agent Core's Session ID default (version 1's top-level field, version 2's option): the chat's or Agent Context's session. */
export const SESSION_ID_DEFAULT = '={{ $json.session_id ?? $json.sessionId ?? "" }}';

/** Version 2's name for version 1's Operation (Run a new task / Resume a paused run); see V2/description.ts for why. */
export const RUN_OR_RESUME = 'runOrResume';

/** Version 2's name for what shows a field in version 1 (a row's `shownWith`): Governance shows Require Approval. */
const VERSION_2_SHOWN_WITH: Readonly<Record<string, string>> = {
	'Require Approval': 'Governance → Require Approval',
	'Output Format → JSON Matching a Schema': 'Require Specific Output Format',
};

/**
 * Settings the node assembles from several fields or builds itself, which no row's panel facts place: their
 * panel names per version, where the version has them (version 1's shared budget is its row's `panelLabel`).
 */
const ASSEMBLED: Readonly<Record<string, Partial<Record<1 | 2, string>>>> = {
	shared_budget: {
		2: 'Governance → Budgets → Shared Token Budget, Shared Cost Budget (USD), Shared Budget Scope, Shared Budget Period (Seconds)',
	},
	mcp_servers: { 2: 'Options → MCP Servers (JSON)' },
};

/** A setting's field in one node version. */
export interface FieldPlace {
	/** Its parameter in workflows: the collection's parameter name then the field's, or the field's alone at the top level. */
	path: readonly string[];
	/** The collection as the panel labels it ('Options', 'Budgets', 'Limits'), '' at the top level. */
	collection: string;
	/** What must be on for the field to show (e.g. 'Governance'), before the collection. */
	shownUnder?: string;
	/** The toggle or option inside that shows it (e.g. 'Governance → Require Approval'). */
	shownWith?: string;
	displayName: string;
}

const VERSION_1_COLLECTIONS: Record<PanelFacts['collection'], string> = {
	limits: 'Limits',
	options: 'Options',
	top: '',
};

/** Where a row's field sits in node version `version`, or undefined when that version's panel does not show it. */
export function placeOf(panel: PanelFacts, version: number): FieldPlace | undefined {
	if ((panel.since ?? 1) > version) return undefined;
	if (version < 2) {
		const path = panel.collection === 'top' ? [panel.name] : [panel.collection, panel.name];
		return {
			path,
			collection: VERSION_1_COLLECTIONS[panel.collection],
			shownWith: panel.shownWith,
			displayName: panel.displayName,
		};
	}
	const displayName = VERSION_2_DISPLAY_NAMES[panel.name] ?? panel.displayName;
	const shownWith =
		panel.shownWith === undefined
			? undefined
			: (VERSION_2_SHOWN_WITH[panel.shownWith] ?? panel.shownWith);
	// The limits that are budgets show under Governance → Budgets; the other limits and options under Options.
	if (panel.collection === 'limits' && panel.budget) {
		return {
			path: ['budgets', panel.name],
			collection: 'Budgets',
			shownUnder: 'Governance',
			shownWith,
			displayName,
		};
	}
	if (
		panel.collection !== 'top' ||
		(MOVED_INTO_OPTIONS as readonly string[]).includes(panel.name)
	) {
		return { path: ['options', panel.name], collection: 'Options', shownWith, displayName };
	}
	return { path: [panel.name], collection: '', shownWith, displayName };
}

/** A setting's panel name in node version `version` as docs/node-panel.md gives it: what shows it, its collection, its name; '—' when none. */
export function panelCell(
	key: string,
	setting: Pick<Setting, 'panel' | 'panelLabel'>,
	version: 1 | 2,
): string {
	const assembled = ASSEMBLED[key]?.[version] ?? (version === 1 ? setting.panelLabel : undefined);
	if (assembled) return assembled;
	const place = setting.panel ? placeOf(setting.panel, version) : undefined;
	if (!place) return '—';
	return [place.shownUnder, place.collection, place.shownWith, place.displayName]
		.filter(Boolean)
		.join(' → ');
}

/** The panel's name for a field the node builds with no row (e.g. MCP Servers (JSON)), for errors: this version's, else the other's. */
export function assembledName(key: string, version: number): string | undefined {
	const names = ASSEMBLED[key];
	return names && (names[version >= 2 ? 2 : 1] ?? names[2] ?? names[1]);
}
