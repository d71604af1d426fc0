// What Agent Core's panel, in each node version, calls an engine error's field: the fix an error shows names it so.
import type { FieldNamer } from '../../shared/node-errors';
import { sharedFieldName } from '../../shared/node-errors';
import { SETTINGS, type Setting } from '../../../src/panel';
import { assembledName, placeOf } from './places';

/** Agent Core's panel names of the fields that are not config keys (the Redis credential's is shared). */
const FIELD_NAMES: Record<string, string> = {
	// The run's files are the item's binary properties (version 2, execute/inputs/read-files.ts).
	files: 'Options → Binary Properties',
	run_state: 'Run State',
	runKey: 'Governance → Run Key',
	stateSecret: 'the Run State credential',
};

/**
 * What the panel of node version `version` calls an error's field: a config key's collection and field where
 * places.ts places its row ("Options → Max Iterations"; a path inside it follows, as in "Tool Settings
 * (JSON) → http_request"), or the panel's name for another field; the engine's name when the panel has none.
 */
export function panelName(field: string, version: number): string {
	// A list's entry follows its key with no dot: "guardrails[0].kinds[0]" is Guardrails → [0].kinds[0].
	const [, key, rest] = /^([^.[]*)\.?(.*)$/s.exec(field)!;
	const path = rest ? [rest] : [];
	const panel = Object.hasOwn(SETTINGS, key)
		? (SETTINGS[key as keyof typeof SETTINGS] as Setting).panel
		: undefined;
	// A field a later version added is still named by that version's place: the fix says where it is.
	const place =
		panel && (placeOf(panel, version) ?? placeOf(panel, Math.max(version, panel.since ?? 1)));
	if (!place)
		return (
			assembledName(field, version) ??
			(Object.hasOwn(FIELD_NAMES, field) ? FIELD_NAMES[field] : sharedFieldName(field))
		);
	return [place.collection, place.displayName, ...path].filter(Boolean).join(' → ');
}

/** The field namer of node version `version`, for toNodeError and mapItems. */
export function agentCoreFieldNames(version: number): FieldNamer {
	return (field) => panelName(field, version);
}
