// The settings table's panel facts as n8n properties, and an item's panel values read back into config keys.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import {
	type AgentConfig,
	type PanelFacts,
	type Setting,
	SETTINGS,
	settingEntries,
} from '../../../src/panel';
import { placeOf } from './places';

type Collection = 'limits' | 'options';

/** One setting's panel entry, built from its row; `extra` adds what only n8n knows (displayOptions). */
export function settingProperty(
	key: keyof AgentConfig,
	extra: Pick<INodeProperties, 'displayOptions'> = {},
): INodeProperties {
	const setting = SETTINGS[key] as Setting;
	if (!setting.panel || setting.panel.builtByNode)
		throw new Error(`the setting ${key} has no panel entry to build`);
	return propertyOf(setting, setting.panel, extra);
}

function propertyOf(
	setting: Setting,
	panel: PanelFacts,
	extra: Pick<INodeProperties, 'displayOptions'>,
	version = 1,
): INodeProperties {
	const minimum = setting.check.range?.minimum;
	// A number field shows the check's minimum, so the panel refuses what the engine would.
	const bounds =
		panel.typeOptions ??
		(panel.type === 'number' && minimum !== undefined ? { minValue: minimum } : undefined);
	// Version 2 shows a whole-number setting without decimals (issue #41); version 1's panel stays as it was.
	const whole =
		version >= 2 && panel.type === 'number' && setting.check.range?.integer === true
			? { numberPrecision: 0 }
			: undefined;
	const typeOptions = bounds || whole ? { ...whole, ...bounds } : undefined;
	return {
		displayName: panel.displayName,
		name: panel.name,
		type: panel.type,
		...(typeOptions ? { typeOptions: { ...typeOptions } } : {}),
		...(panel.choices ? { options: panel.choices.map((choice) => ({ ...choice })) } : {}),
		default: (panel.default ?? setting.default) as INodeProperties['default'],
		...(panel.description ? { description: panel.description } : {}),
		...extra,
	};
}

/** The settings a collection of node version `version` holds, with the node's own fields in it, in n8n's alphabetical order. */
export function collectionProperties(
	collection: Collection,
	nodeFields: INodeProperties[],
	version = 1,
	entries = settingEntries(),
): INodeProperties[] {
	const fromTable = entries.flatMap(([, setting]) =>
		setting.panel?.collection === collection &&
		!setting.panel.builtByNode &&
		(setting.panel.since ?? 1) <= version
			? [propertyOf(setting, setting.panel, {}, version)]
			: [],
	);
	return [...fromTable, ...nodeFields].sort((first, second) =>
		first.displayName.localeCompare(second.displayName),
	);
}

/** How a node version reads one config key: a value it always runs with, or the collection and field holding it. */
type Reading =
	| { key: string; always: unknown }
	| { key: string; collection: string; field: string; unsetValue: unknown };

/** Per node version, its readings in the table's order: the table and the places are fixed, so each is worked out once. */
const READINGS = new Map<number, Reading[]>();

function readingsOf(version: 1 | 2): Reading[] {
	const known = READINGS.get(version);
	if (known) return known;
	const readings: Reading[] = [];
	for (const [key, { panel }] of settingEntries()) {
		if (!panel || panel.builtByNode || panel.collection === 'top') continue;
		// A setting newer than this node version runs as that version always did (e.g. one tool call per reply in version 1).
		if ((panel.since ?? 1) > version && panel.olderVersions !== undefined) {
			readings.push({ key, always: panel.olderVersions });
			continue;
		}
		const place = placeOf(panel, version);
		if (!place || place.path.length !== 2) continue;
		const [collection, field] = place.path;
		readings.push({ key, collection, field, unsetValue: panel.unsetValue });
	}
	READINGS.set(version, readings);
	return readings;
}

/**
 * The config keys an item's panel sets in node version `version`, from its collections by parameter name
 * (`limits` and `options` in version 1; `options` and `budgets` in version 2), each where places.ts
 * places it: a field not added is left out (the engine's default applies), and a field at its "unset" value
 * too (the provider's default applies).
 */
export function configFromPanel(
	version: 1 | 2,
	collections: Readonly<Record<string, IDataObject>>,
): Partial<AgentConfig> {
	const config: Record<string, unknown> = {};
	for (const reading of readingsOf(version)) {
		if ('always' in reading) {
			config[reading.key] = reading.always;
			continue;
		}
		const value = collections[reading.collection]?.[reading.field];
		if (value !== undefined && value !== reading.unsetValue) config[reading.key] = value;
	}
	return config as Partial<AgentConfig>;
}

/** Version 1's Limits and Options read into config keys (configFromPanel for version 1). */
export function configFromCollections(
	collections: Record<Collection, IDataObject>,
): Partial<AgentConfig> {
	return configFromPanel(1, collections);
}
