// Where each setting lives in each node version's panel: the one place that resolves version-specific names.
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import type { AgentConfig } from '../../src';
import { settingsFromToolFields } from './tool-fields';

/** Agent Core's Session ID default (version 1's top-level field, version 2's option): the chat's or Agent Context's session. */
export const SESSION_ID_DEFAULT = '={{ $json.session_id ?? $json.sessionId ?? "" }}';

/**
 * Version 2 shows some of version 1's fields under n8n's names for the same meaning; the parameter names in
 * workflows stay version 1's, so only the label changes (and the settings table keeps the engine's words).
 */
export const VERSION_2_DISPLAY_NAMES: Record<string, string> = {
  developerText: 'System Message',
  maxSteps: 'Max Iterations',
  streamResponse: 'Enable Streaming',
};

/**
 * Top-level fields of version 1 that version 2 keeps inside its Options collection (same parameter name),
 * and the collections whose fields it regroups: Limits into Options and Budgets, the batch fields into
 * Options → Batch Processing, Output Format into the Require Specific Output Format toggle.
 */
export const MOVED_INTO_OPTIONS = ['developerText', 'sessionId', 'toolSettingsJson', 'workflowTools'] as const;
type MovedField = (typeof MOVED_INTO_OPTIONS)[number];

type Context = IExecuteFunctions | ILoadOptionsFunctions;

/** Version 2's name for version 1's Operation (Run a new task / Resume a paused run); see V2/description.ts for why. */
export const RUN_OR_RESUME = 'runOrResume';

/** Whether this item resumes a paused run: version 1's Operation, version 2's RUN_OR_RESUME. */
export function isResuming(context: IExecuteFunctions, itemIndex: number): boolean {
  return context.getNodeParameter(panelVersion(context) >= 2 ? RUN_OR_RESUME : 'operation', itemIndex, 'run') === 'resume';
}

/** The node version of the node being run or edited (version 1 for workflows saved before versions existed). */
export function panelVersion(context: Context): number {
  return context.getNode().typeVersion >= 2 ? 2 : 1;
}

/** A moved field's parameter path in this node's version, e.g. `options.workflowTools` in version 2. */
export function fieldPath(context: Context, name: MovedField): string {
  return panelVersion(context) >= 2 ? `options.${name}` : name;
}

/** Version 2's value of a moved field not added to Options: the default it has when added (Session ID's expression, Tool Settings' {}). */
const VERSION_2_FALLBACKS: Partial<Record<MovedField, unknown>> = { sessionId: SESSION_ID_DEFAULT, toolSettingsJson: '{}' };

/** A moved field's fallback when it is not set: in version 2 a field not added to Options still has its default. */
export function fieldFallback(context: Context, name: MovedField, versionOneFallback: unknown): unknown {
  return panelVersion(context) >= 2 && name in VERSION_2_FALLBACKS ? VERSION_2_FALLBACKS[name] : versionOneFallback;
}

/**
 * The item's Options and Limits as version 1 names them, whatever the version: version 2's Options (with its
 * Batch Processing and Require Specific Output Format) and Budgets are read into that shape once.
 */
export function readCollections(context: IExecuteFunctions, itemIndex: number): { options: IDataObject; limits: IDataObject } {
  const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
  if (panelVersion(context) < 2) return { options, limits: context.getNodeParameter('limits', itemIndex, {}) as IDataObject };
  const { batching, requireOutputFormat, ...rest } = options;
  const budgets = context.getNodeParameter('governance', itemIndex, false) === true ? (context.getNodeParameter('budgets', itemIndex, {}) as IDataObject) : {};
  const asVersionOne: IDataObject = { ...rest, ...((batching as IDataObject | undefined) ?? {}), outputFormat: requireOutputFormat === true ? 'json' : 'text' };
  return { options: asVersionOne, limits: { ...rest, ...budgets } };
}

/** Require Approval, Audit Trail or Durable Runs (version 2 only): in version 2 each is on only while Governance, the toggle that shows it, is on. */
export function governanceSwitch(context: IExecuteFunctions, itemIndex: number, name: 'needsApproval' | 'auditTrail' | 'durableRuns'): boolean {
  if (context.getNodeParameter(name, itemIndex, false) !== true) return false;
  return panelVersion(context) < 2 || context.getNodeParameter('governance', itemIndex, false) === true;
}

/**
 * Version 2's structured tool fields (HTTP Request: Allowed Domains and each allowed tool's settings
 * collection, see tool-fields.ts) into the tool settings, under Tool Settings (JSON): a key it sets wins.
 */
export function withToolFields(context: IExecuteFunctions, itemIndex: number, toolSettings: AgentConfig['tool_settings'], allowed: readonly string[]): AgentConfig['tool_settings'] {
  return panelVersion(context) < 2 ? toolSettings : settingsFromToolFields(context, itemIndex, toolSettings, allowed);
}
