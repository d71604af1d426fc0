// Version 2's structured fields for the built-in tools' settings, derived from each tool's settingsSchema, and their values read back into tool_settings.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { type AgentConfig, builtInTools, type JsonSchema, type Tool } from '../../../src/panel';

type ToolSettings = AgentConfig['tool_settings'];

/**
 * Settings that get no field in their tool's collection, and why. Everything else of a simple type in a
 * settingsSchema gets one (test/nodes/AgentCore/panel/agent-core-v2-tool-fields.test.ts fails for a new property that has neither).
 * Secrets and connections come from the node's credentials, so the workflow never holds them in plain sight;
 * nested objects have no simple field. Tool Settings (JSON) still accepts all of them.
 */
export const LEFT_OUT_OF_TOOL_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
	http_request: {
		headers:
			"secret header values (a name → value object): the 'Agent Core: HTTP Request Tool API' credential brings them, with their hosts",
	},
	feishu_bot: {
		webhook_url:
			"a secret (its path is the bot's token): the 'Agent Core: Feishu / Lark Bot API' credential brings it",
		signing_secret: "a secret: the 'Agent Core: Feishu / Lark Bot API' credential brings it",
	},
	redis_context: {
		redis_url:
			"the Redis connection, password included: the 'Agent Core: Redis API' credential brings it",
		connection:
			"the Redis connection, a nested object with a password: the 'Agent Core: Redis API' credential brings it",
	},
};

/**
 * Settings whose field stands at the top of the panel rather than in the collection: HTTP Request: Allowed
 * Domains came first and v2 workflows use its name. A chosen `unlessCredential` brings the setting itself,
 * and the field is then not read.
 */
export const TOP_LEVEL_TOOL_FIELDS: Readonly<
	Record<
		string,
		Readonly<Record<string, { name: string; displayName: string; unlessCredential: string }>>
	>
> = {
	http_request: {
		allowed_domains: {
			name: 'httpAllowedDomains',
			// Short enough not to be cut in the panel ("HTTP Request: Allowed Dom…"); it shows only with HTTP Request.
			displayName: 'Allowed Domains',
			unlessCredential: 'agentCoreHttpHeaderApi',
		},
	},
};

/** One settings property that has a field: its key in tool_settings, its parameter name, and how it is shown. */
export interface ToolField {
	key: string;
	property: INodeProperties;
	/** The field's value as the settings take it; undefined leaves the key out. */
	toSetting(value: unknown): unknown;
}

const ACRONYMS: Record<string, string> = {
	http: 'HTTP',
	ttl: 'TTL',
	url: 'URL',
	json: 'JSON',
	id: 'ID',
};
const UNITS: Record<string, string> = { ms: 'Milliseconds', seconds: 'Seconds' };
const word = (part: string) => ACRONYMS[part] ?? part.charAt(0).toUpperCase() + part.slice(1);

/** n8n's Title Case for a settings key: max_redirects → Max Redirects, ttl_seconds → TTL (Seconds). */
export function displayNameOf(key: string): string {
	const parts = key.split('_');
	const unit = parts.length > 1 ? UNITS[parts[parts.length - 1]] : undefined;
	const words = (unit ? parts.slice(0, -1) : parts).map(word).join(' ');
	return unit ? `${words} (${unit})` : words;
}

/** n8n's camelCase parameter name for a settings key (http_request → httpRequest). */
const camelCase = (key: string) =>
	key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** The collection's parameter name for a tool's settings, e.g. redisContextSettings. */
export const collectionNameOf = (toolName: string) => `${camelCase(toolName)}Settings`;

/** The default the description states ("…; default 5."): the schemas keep it there, next to the bound it must meet. */
function describedDefault(description: string): string | undefined {
	return /\bdefault ([^\s;,]+?)\.?(?=[\s;,]|$)/.exec(description)?.[1];
}

/** n8n's description style: one sentence without a final period, booleans starting with "Whether". */
function panelDescription(description: string, type: unknown): string {
	let text = description.trim();
	if (type === 'boolean' && !/^whether\b/i.test(text))
		text = `Whether to ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
	return /\.\s/.test(text) ? text : text.replace(/\.$/, '');
}

/** One line on each choice a settings schema lists (issue #41: every option has a description). */
const CHOICE_WORDS: Record<string, string> = {
	GET: 'Read a resource',
	POST: 'Create or send something',
	PUT: 'Replace a resource',
	PATCH: 'Change part of a resource',
	DELETE: 'Delete a resource',
	any: 'Any host that passes the address policy and the allowed domains',
	from_prompt: "Only hosts named in the user's messages or the instructions (or allowed domains)",
};

const optionsOf = (values: readonly unknown[]): INodePropertyOptions[] =>
	values
		.map((value) => ({
			name: String(value).split('_').map(word).join(' '),
			value: String(value),
			...(CHOICE_WORDS[String(value)] ? { description: CHOICE_WORDS[String(value)] } : {}),
		}))
		.sort((first, second) => first.name.localeCompare(second.name));

const listOf = (value: unknown) =>
	(Array.isArray(value) ? value.map(String) : String(value ?? '').split(/[\s,]+/)).filter(
		(item) => item !== '',
	);
const asIs = (value: unknown) => value;
const nonEmptyList = (value: unknown) => {
	const items = listOf(value);
	return items.length > 0 ? items : undefined;
};

/** The field for one settings property, or undefined when its type has no simple field (a nested object). */
function fieldOf(key: string, schema: JsonSchema): ToolField | undefined {
	const description = typeof schema.description === 'string' ? schema.description : '';
	const base = {
		displayName: displayNameOf(key),
		name: camelCase(key),
		...(description ? { description: panelDescription(description, schema.type) } : {}),
	};
	const stated = describedDefault(description);
	const items = (schema.items ?? {}) as JsonSchema;
	if (Array.isArray(schema.enum)) {
		return {
			key,
			toSetting: asIs,
			property: {
				...base,
				type: 'options',
				options: optionsOf(schema.enum),
				default: String(schema.enum[0]),
			},
		};
	}
	switch (schema.type) {
		case 'boolean':
			return {
				key,
				toSetting: asIs,
				property: { ...base, type: 'boolean', default: stated === 'true' },
			};
		case 'integer':
		case 'number': {
			const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
			const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
			const value = Number(stated);
			const fits =
				stated !== undefined &&
				Number.isFinite(value) &&
				(minimum === undefined || value >= minimum) &&
				(maximum === undefined || value <= maximum);
			const typeOptions = {
				...(minimum !== undefined ? { minValue: minimum } : {}),
				...(maximum !== undefined ? { maxValue: maximum } : {}),
				...(schema.type === 'integer' ? { numberPrecision: 0 } : {}),
			};
			return {
				key,
				toSetting: asIs,
				property: { ...base, type: 'number', typeOptions, default: fits ? value : (minimum ?? 0) },
			};
		}
		case 'string':
			return { key, toSetting: asIs, property: { ...base, type: 'string', default: stated ?? '' } };
		case 'array':
			if (Array.isArray(items.enum))
				return {
					key,
					toSetting: nonEmptyList,
					property: { ...base, type: 'multiOptions', options: optionsOf(items.enum), default: [] },
				};
			if (items.type === 'string')
				return {
					key,
					toSetting: nonEmptyList,
					property: { ...base, type: 'string', default: '', placeholder: 'e.g. first, second' },
				};
			return undefined;
		default:
			return undefined;
	}
}

/** A tool's settings properties that have a field in its collection (not left out, not at the top level), in n8n's alphabetical order. */
export function toolFieldsOf(tool: Tool): ToolField[] {
	const properties = (tool.settingsSchema?.properties ?? {}) as Record<string, JsonSchema>;
	const elsewhere = { ...LEFT_OUT_OF_TOOL_FIELDS[tool.name], ...TOP_LEVEL_TOOL_FIELDS[tool.name] };
	return Object.entries(properties)
		.filter(([key]) => !(key in elsewhere))
		.flatMap(([key, schema]) => fieldOf(key, schema) ?? [])
		.sort((first, second) => first.property.displayName.localeCompare(second.property.displayName));
}

/** The built-in tools that have fields, with them. */
const toolsWithFields = () =>
	builtInTools
		.map((tool) => ({ tool, fields: toolFieldsOf(tool) }))
		.filter(({ fields }) => fields.length > 0);

/** A tool's label as Allowed Tools shows it, without the aside in brackets: http_request → HTTP Request. */
export function toolLabels(allowedTools: INodeProperties): (toolName: string) => string {
	const labels = new Map(
		((allowedTools.options ?? []) as INodePropertyOptions[]).map((option) => [
			option.value,
			option.name,
		]),
	);
	return (name) => (labels.get(name) ?? name).replace(` (${name})`, '').replace(/ \([^)]*\)$/, '');
}

/**
 * One collection per built-in tool with settings, shown while that tool is allowed, named by its label in
 * `allowedTools` (its options read "HTTP Request (http_request)"; a label's own aside in brackets is dropped).
 */
export function toolSettingsCollections(allowedTools: INodeProperties): INodeProperties[] {
	const labelOf = toolLabels(allowedTools);
	const order = ((allowedTools.options ?? []) as INodePropertyOptions[]).map(({ value }) => value);
	return toolsWithFields()
		.sort((first, second) => order.indexOf(first.tool.name) - order.indexOf(second.tool.name))
		.map(({ tool, fields }) => ({
			displayName: `${labelOf(tool.name)} Settings`,
			name: collectionNameOf(tool.name),
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			description: `Settings of ${labelOf(tool.name)} (tool_settings.${tool.name}); a key set in Options → Tool Settings (JSON) overrides its field`,
			displayOptions: { show: { allowedTools: [tool.name] } },
			options: fields.map(({ property }) => structuredClone(property)),
		}));
}

/**
 * The settings one item's tool fields give, for allowed tools only, under Tool Settings (JSON): a key the
 * JSON sets wins over its field. A tool whose fields are all unset gets no entry. The values are not checked
 * here: tool-field-problems.ts checks the fields' values and names a bad one's field; the engine checks the rest.
 */
export function settingsFromToolFields(
	context: IExecuteFunctions,
	itemIndex: number,
	toolSettings: ToolSettings,
	allowed: readonly string[],
): ToolSettings {
	const settings = { ...toolSettings };
	const chosen = context.getNode().credentials ?? {};
	for (const tool of builtInTools) {
		const own = toolSettings[tool.name];
		// A JSON entry that is not an object stays as it is, for the engine to refuse by name.
		if (
			!allowed.includes(tool.name) ||
			(own !== undefined && (typeof own !== 'object' || own === null || Array.isArray(own)))
		)
			continue;
		const fromFields: IDataObject = {};
		const collection =
			toolFieldsOf(tool).length > 0
				? (context.getNodeParameter(collectionNameOf(tool.name), itemIndex, {}) as IDataObject)
				: {};
		for (const { key, property, toSetting } of toolFieldsOf(tool)) {
			const value = property.name in collection ? toSetting(collection[property.name]) : undefined;
			if (value !== undefined) fromFields[key] = value as IDataObject[string];
		}
		for (const [key, { name, unlessCredential }] of Object.entries(
			TOP_LEVEL_TOOL_FIELDS[tool.name] ?? {},
		)) {
			const value = chosen[unlessCredential]
				? undefined
				: nonEmptyList(context.getNodeParameter(name, itemIndex, ''));
			if (value !== undefined) fromFields[key] = value;
		}
		if (Object.keys(fromFields).length > 0) settings[tool.name] = { ...fromFields, ...own };
	}
	return settings;
}
