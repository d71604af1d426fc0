import { NodeApiError, NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { AgentCoreError, SETTINGS, type PanelFacts, type Setting } from '../../src';
import { MOVED_INTO_OPTIONS, VERSION_2_DISPLAY_NAMES, panelVersion } from '../AgentCore/panel-versions';

/**
 * A NodeOperationError that keeps our message. n8n rewrites any message mentioning a common error code
 * (ECONNREFUSED, ETIMEDOUT…) into a generic sentence; ours already names the service, the address and the fix.
 */
export function nodeError(context: IExecuteFunctions, message: string, itemIndex: number, description?: string): NodeOperationError {
  const error = new NodeOperationError(context.getNode(), message, { itemIndex, ...(description ? { description } : {}) });
  error.message = message;
  return error;
}

/** Engine errors (typed, in src/) become n8n errors here, and only here: the message, and the fix in the panel's words. */
export function toNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError | NodeApiError {
  if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
  if (error instanceof AgentCoreError) return nodeError(context, error.message, itemIndex, error.fixNaming(panelName(error.field, panelVersion(context))));
  return nodeError(context, error instanceof Error ? error.message : String(error), itemIndex);
}

/** The panel's names of the fields that are not config keys. */
const FIELD_NAMES: Record<string, string> = { run_state: 'Run State', redis: 'the Redis credential', runKey: 'Governance → Run Key', stateSecret: 'the Run State credential', mcp_servers: 'Options → MCP Servers (JSON)' };

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
  if (!panel) return Object.hasOwn(FIELD_NAMES, field) ? FIELD_NAMES[field] : field;
  const collection = version >= 2 ? versionTwoCollection(panel) : COLLECTION_NAMES[panel.collection];
  const displayName = (version >= 2 ? VERSION_2_DISPLAY_NAMES[panel.name] : undefined) ?? panel.displayName;
  return [collection, displayName, path.join('.')].filter(Boolean).join(' → ');
}
