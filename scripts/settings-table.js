#!/usr/bin/env node
// Prints docs/node-panel.md's *Configuration keys* table from src/settings/settings.ts (via dist/): key, panel, CLI, default, meaning.
// @ts-check
'use strict';

/** @type {Record<string, string>} */
const COLLECTIONS = { limits: 'Limits', options: 'Options', top: '' };

/**
 * Where a setting sits in the node's panel, as docs/node-panel.md names it.
 * @param {any} setting
 */
function panelCell(setting) {
  if (setting.panelLabel) return setting.panelLabel;
  const panel = setting.panel;
  if (!panel) return '—';
  return [COLLECTIONS[panel.collection], panel.shownWith, panel.displayName].filter(Boolean).join(' → ');
}

/** @param {any} setting */
function defaultCell(setting) {
  if (setting.required) return '(required)';
  if (!('default' in setting)) return '(absent)';
  if (typeof setting.default === 'number') return String(setting.default);
  return `\`${typeof setting.default === 'string' ? setting.default : JSON.stringify(setting.default)}\``;
}

/**
 * The table's lines: one row per config key in the order they are checked, then the run options that are
 * settings too (library option, panel field and CLI flag under one row).
 * @param {Record<string, any>} settings SETTINGS
 * @param {Record<string, any>} runOptionSettings RUN_OPTION_SETTINGS
 * @returns {string[]}
 */
function settingsTableLines(settings, runOptionSettings) {
  const rows = Object.entries(settings).map(([key, setting]) => [`\`${key}\``, panelCell(setting), 'in `--config`', defaultCell(setting), setting.meaning]);
  for (const [name, setting] of Object.entries(runOptionSettings)) {
    rows.push([`\`${name}\` (library option)`, panelCell(setting), `\`--${setting.cliFlag}\``, '(absent)', setting.meaning]);
  }
  return ['| key | node | CLI | default | meaning |', '|---|---|---|---|---|', ...rows.map((cells) => `| ${cells.join(' | ')} |`)];
}

module.exports = { settingsTableLines };

if (require.main === module) {
  // Built code, found at run time: a fresh clone type-checks this file before dist/ exists.
  const { SETTINGS, RUN_OPTION_SETTINGS } = require(require('node:path').join(__dirname, '..', 'dist', 'src', 'index.js'));
  process.stdout.write(`${settingsTableLines(SETTINGS, RUN_OPTION_SETTINGS).join('\n')}\n`);
}
