// What differs between Agent Core's node versions when a run reads its panel: one reader per version (V1/, V2/).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { AgentConfig } from '../../../src/panel';
import type { FieldNamer } from '../../shared/node-errors';
import type { CredentialPicker } from '../execute/governance/missing-credential';
import type { WorkflowToolRow } from '../execute/inputs/workflow-tools';

type ToolSettings = AgentConfig['tool_settings'];

/** Governance's switches (version 2; top-level in version 1). */
export type GovernanceSwitch = 'needsApproval' | 'auditTrail' | 'durableRuns';

/** One item's panel values in the engine's terms, read once, whatever the version. */
export interface ItemPanel {
	/** Session ID, with its default expression computed directly (shared/items.ts). */
	sessionId: string;
	/** Instructions (version 1) or System Message (version 2): the run's developerText. */
	developerText: string;
	/** Tool Settings (JSON), as the field holds it (text or an expression's object); undefined when not set. */
	toolSettingsJson: unknown;
	/**
	 * The Options fields the node itself owns (failures, streaming, read-only tools, MCP servers, model call
	 * slots, intermediate steps, version 2's Binary Properties): one name each in both versions.
	 */
	options: IDataObject;
	/** Output Schema, when the answer must be JSON (Output Format in version 1, Require Specific Output Format in version 2). */
	outputSchema?: { value: unknown };
	/** The config keys the settings table places in this version's panel, and the shared budget; a field not set is left out. */
	config: Partial<AgentConfig>;
	workflowTools: WorkflowToolRow[];
	/** Require Approval, Audit Trail, Durable Runs: in version 2 each counts only while Governance, which shows it, is on. */
	switches: Readonly<Record<GovernanceSwitch, boolean>>;
	/** Whether the Redis and Run State credential pickers are shown (version 2 shows them under Governance). */
	credentialsShown: boolean;
}

/** A node version's reading of its panel, chosen once by the node class, not per item. */
export interface PanelVersion {
	readonly version: 1 | 2;
	/** What this version's panel calls an engine error's field (names.ts agentCoreFieldNames), made once. */
	readonly fieldNames: FieldNamer;
	/** Whether this item resumes a paused run (version 1's Operation, version 2's Run or Resume). */
	isResuming(context: IExecuteFunctions, itemIndex: number): boolean;
	/** The item's panel values, each read once. */
	readItem(context: IExecuteFunctions, itemIndex: number): ItemPanel;
	/** Batch Size and Delay Between Batches: n8n batches a node's items by one setting, so the first item's. */
	readBatching(context: IExecuteFunctions): { size: number; delayMs: number };
	/** Whether the node has its Needs Approval output (it is drawn from the parameters, not per item). */
	hasApprovalOutput(context: IExecuteFunctions): boolean;
	/** The tool settings with this version's structured tool fields put in (V2/tool-fields.ts); Tool Settings (JSON) wins. */
	withToolFields(
		context: IExecuteFunctions,
		itemIndex: number,
		toolSettings: ToolSettings,
		allowed: readonly string[],
	): ToolSettings;
	/** Workflow Tools' parameter path, for the approval tool list in the editor. */
	readonly workflowToolsPath: string;
	/** The Redis and Run State credential pickers as the panel shows them, named when a use needs one and none is chosen. */
	readonly credentialPickers: { redis: CredentialPicker; runState: CredentialPicker };
}

/** Shared Token Budget, Shared Cost Budget (version 2), Scope and Period: one config key, set when either budget is above 0. */
export function sharedBudget(
	fields: IDataObject,
): Pick<AgentConfig, 'shared_budget'> | Record<string, never> {
	const tokens =
		Number(fields.sharedBudgetTokens) > 0 ? { tokens: fields.sharedBudgetTokens as number } : {};
	const cost =
		Number(fields.sharedBudgetCost) > 0 ? { cost: fields.sharedBudgetCost as number } : {};
	if (!('tokens' in tokens) && !('cost' in cost)) return {};
	const period_seconds = (fields.sharedBudgetPeriod ?? 86400) as number;
	return {
		shared_budget: {
			scope: String(fields.sharedBudgetScope ?? ''),
			...tokens,
			...cost,
			period_seconds,
		},
	};
}
