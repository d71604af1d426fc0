#!/usr/bin/env node
// Prints docs/node-panel.md's *Configuration keys* table from src/settings/settings.ts (via dist/): key, panel names per version, CLI, default, meaning.
// @ts-check
'use strict';

/**
 * A setting's panel name in node version 1 or 2, from its settings-table row (nodes/AgentCore/panel/places.ts panelCell).
 * @typedef {(key: string, setting: any, version: 1 | 2) => string} PanelCell
 */

/** @param {any} setting */
function defaultCell(setting) {
	if (setting.required) return '(required)';
	if (!('default' in setting)) return '(absent)';
	if (typeof setting.default === 'number') return String(setting.default);
	return `\`${typeof setting.default === 'string' ? setting.default : JSON.stringify(setting.default)}\``;
}

/**
 * The table's lines: one row per config key in the order they are checked, then the run options that are
 * settings too (library option, panel field and CLI flag under one row). The node columns give each version's
 * panel name and place, version 2 (what a new node gets) first; '—' where that version has no field for it.
 * @param {Record<string, any>} settings SETTINGS
 * @param {Record<string, any>} runOptionSettings RUN_OPTION_SETTINGS
 * @param {PanelCell} panelCell
 * @returns {string[]}
 */
function settingsTableLines(settings, runOptionSettings, panelCell) {
	/** @param {string} key @param {any} setting */
	const nodeCells = (key, setting) => [panelCell(key, setting, 2), panelCell(key, setting, 1)];
	const rows = Object.entries(settings).map(([key, setting]) => [
		`\`${key}\``,
		...nodeCells(key, setting),
		'in `--config`',
		defaultCell(setting),
		setting.meaning,
	]);
	for (const [name, setting] of Object.entries(runOptionSettings)) {
		rows.push([
			`\`${name}\` (library option)`,
			...nodeCells(name, setting),
			`\`--${setting.cliFlag}\``,
			'(absent)',
			setting.meaning,
		]);
	}
	const header = ['key', 'node (version 2)', 'node (version 1)', 'CLI', 'default', 'meaning'];
	return [
		`| ${header.join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map((cells) => `| ${cells.join(' | ')} |`),
	];
}

module.exports = { settingsTableLines };

if (require.main === module) {
	// Built code, found at run time: a fresh clone type-checks this file before dist/ exists.
	const path = require('node:path');
	const { SETTINGS, RUN_OPTION_SETTINGS } = require(
		path.join(__dirname, '..', 'dist', 'src', 'panel.js'),
	);
	const { panelCell } = require(
		path.join(__dirname, '..', 'dist', 'nodes', 'AgentCore', 'panel', 'places.js'),
	);
	process.stdout.write(
		`${settingsTableLines(SETTINGS, RUN_OPTION_SETTINGS, panelCell).join('\n')}\n`,
	);
}
