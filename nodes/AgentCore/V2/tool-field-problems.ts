// A bad value in a version 2 tool field is named by that field ("Allowed Domains"), not by Tool Settings (JSON).
import type { IExecuteFunctions } from 'n8n-workflow';
import { builtInTools, toolSettingsProblems, type AgentConfig } from '../../../src/run-path';
import { nodeError } from '../../shared/node-errors';
import { agentCoreProperties } from '../V1/description';
import { TOP_LEVEL_TOOL_FIELDS, toolFieldsOf, toolLabels } from './tool-fields';

type ToolSettings = AgentConfig['tool_settings'];

const allowedTools = agentCoreProperties.find((property) => property.name === 'allowedTools')!;

/** The panel's name of the field that sets `key` of `toolName`'s settings, e.g. "HTTP Request Settings → Max Redirects". */
function fieldName(toolName: string, key: string): string | undefined {
	const top = TOP_LEVEL_TOOL_FIELDS[toolName]?.[key];
	if (top) return top.displayName;
	const tool = builtInTools.find((candidate) => candidate.name === toolName);
	const field = tool && toolFieldsOf(tool).find((candidate) => candidate.key === key);
	return field && `${toolLabels(allowedTools)(toolName)} Settings → ${field.property.displayName}`;
}

/** One engine problem line (`tool_settings.<tool>.<key>[i]…: problem`) in the panel's words, when a field gave `key`. */
function inPanelWords(toolName: string, line: string, fromFields: ReadonlySet<string>) {
	const match = /^tool_settings\.\w+\.(\w+)(?:\[(\d+)\])?(.*)$/s.exec(line);
	if (!match || !fromFields.has(match[1])) return undefined;
	const [, key, index, rest] = match;
	const name = fieldName(toolName, key);
	if (!name) return undefined;
	return {
		name,
		text: `${name}${index === undefined ? '' : ` (entry ${Number(index) + 1})`}${rest}`,
	};
}

/**
 * Checks the values the tool fields gave (`settings` minus what Tool Settings (JSON) set, which wins) as the engine
 * will, and throws an error naming each bad field with the engine's reason and fix. Values from the JSON, and
 * problems spanning both, are left to the engine, which names Tool Settings (JSON).
 */
export function checkToolFieldValues(
	context: IExecuteFunctions,
	itemIndex: number,
	fromJson: ToolSettings,
	settings: ToolSettings,
): void {
	const problems: Array<{ name: string; text: string }> = [];
	for (const tool of builtInTools) {
		const merged = settings[tool.name];
		if (!merged || typeof merged !== 'object' || Array.isArray(merged)) continue;
		const own = (fromJson[tool.name] ?? {}) as Record<string, unknown>;
		const fromFields = new Set(Object.keys(merged).filter((key) => !(key in own)));
		if (fromFields.size === 0) continue;
		const fieldValues = Object.fromEntries(
			[...fromFields].map((key) => [key, (merged as Record<string, unknown>)[key]]),
		);
		for (const line of toolSettingsProblems(tool, fieldValues)) {
			const problem = inPanelWords(tool.name, line, fromFields);
			if (problem) problems.push(problem);
		}
	}
	if (problems.length === 0) return;
	const names = [...new Set(problems.map(({ name }) => name))];
	throw nodeError(
		context,
		problems.map(({ text }) => text).join('; '),
		itemIndex,
		`Correct the value of ${names.join(' and ')}.`,
	);
}
