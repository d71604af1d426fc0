// What Agent Core's panel, in each node version, calls an engine error's field: the fix an error shows names it so.
import type { IExecuteFunctions } from 'n8n-workflow';
import { SETTINGS, type PanelFacts, type Setting } from '../../src';
import { sharedFieldName, type FieldNamer } from '../shared/node-errors';
import { MOVED_INTO_OPTIONS, VERSION_2_DISPLAY_NAMES, panelVersion } from './panel-versions';

/** Agent Core's panel names of the fields that are not config keys (the Redis credential's is shared). */
const FIELD_NAMES: Record<string, string> = { run_state: 'Run State', runKey: 'Governance → Run Key', stateSecret: 'the Run State credential', mcp_servers: 'Options → MCP Servers (JSON)' };

/** Version 1's collections, as the panel names them. */
const COLLECTION_NAMES: Record<PanelFacts['collection'], string> = { limits: 'Limits', options: 'Options', top: '' };

/** A field's collection in version 2: Options, Budgets, or the top level. */
function versionTwoCollection(panel: PanelFacts): string {
  if (panel.collection === 'limits') return panel.budget ? 'Budgets' : 'Options';
  if (panel.collection === 'top') return (MOVED_INTO_OPTIONS as readonly string[]).includes(panel.name) ? 'Options' : '';
  return 'Options';
}

/**
 * What the panel of node version `version` calls an error's field: a config key's collection and field from the
 * settings table ("Options → Max Iterations"; a path inside it follows, as in "Tool Settings (JSON) →
 * http_request"), or the panel's name for another field; the engine's name when the panel has none.
 */
export function panelName(field: string, version: number): string {
  const [key, ...path] = field.split('.');
  const panel = Object.hasOwn(SETTINGS, key) ? (SETTINGS[key as keyof typeof SETTINGS] as Setting).panel : undefined;
  if (!panel) return Object.hasOwn(FIELD_NAMES, field) ? FIELD_NAMES[field] : sharedFieldName(field);
  const collection = version >= 2 ? versionTwoCollection(panel) : COLLECTION_NAMES[panel.collection];
  const displayName = (version >= 2 ? VERSION_2_DISPLAY_NAMES[panel.name] : undefined) ?? panel.displayName;
  return [collection, displayName, path.join('.')].filter(Boolean).join(' → ');
}

/** The field namer of this Agent Core node's version, for toNodeError and mapItems. */
export function agentCoreFieldNames(context: IExecuteFunctions): FieldNamer {
  const version = panelVersion(context);
  return (field) => panelName(field, version);
}
