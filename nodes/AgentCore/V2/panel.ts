// How a version 2 node's panel reads into a run: straight from its Options, Budgets and Governance, with no version 1 shape between.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { readField } from '../../shared/items';
import { CREDENTIAL_LABELS } from './credential-labels';
import { RUN_OR_RESUME, SESSION_ID_DEFAULT } from '../panel/places';
import { sharedBudget, type PanelVersion } from '../panel/version';
import { configFromPanel } from '../panel/settings';
import { agentCoreFieldNames } from '../panel/names';
import { checkToolFieldValues } from './tool-field-problems';
import { settingsFromToolFields } from './tool-fields';
import type { WorkflowToolRow } from '../execute/inputs/workflow-tools';

const isTrue = (context: IExecuteFunctions, name: string, itemIndex: number) =>
	context.getNodeParameter(name, itemIndex, false) === true;

/** Version 2: what a new node gets (V2/description.ts). A field not added to Options has the default it shows when added. */
export const VERSION_2_PANEL: PanelVersion = {
	version: 2,
	fieldNames: agentCoreFieldNames(2),
	isResuming: (context, itemIndex) =>
		context.getNodeParameter(RUN_OR_RESUME, itemIndex, 'run') === 'resume',
	readItem(context, itemIndex) {
		const sessionId = String(
			readField(context, 'options.sessionId', itemIndex, SESSION_ID_DEFAULT) ?? '',
		);
		// The whole collection at once: n8n copies and resolves all of it on every read.
		const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
		// Governance shows Require Approval, Audit Trail, Durable Runs, Budgets and the credentials: off, none of them counts.
		const governance = isTrue(context, 'governance', itemIndex);
		const budgets = governance
			? (context.getNodeParameter('budgets', itemIndex, {}) as IDataObject)
			: {};
		return {
			sessionId,
			developerText: (options.developerText as string | undefined) ?? '',
			toolSettingsJson: options.toolSettingsJson,
			options,
			...(options.requireOutputFormat === true
				? { outputSchema: { value: options.outputSchema } }
				: {}),
			config: {
				...configFromPanel(2, { options, budgets }),
				...(governance ? sharedBudget(budgets) : {}),
			},
			workflowTools:
				(options.workflowTools as { tools?: WorkflowToolRow[] } | undefined)?.tools ?? [],
			switches: {
				needsApproval: governance && isTrue(context, 'needsApproval', itemIndex),
				auditTrail: governance && isTrue(context, 'auditTrail', itemIndex),
				durableRuns: governance && isTrue(context, 'durableRuns', itemIndex),
			},
			credentialsShown: governance,
		};
	},
	readBatching(context) {
		const batching = context.getNodeParameter('options.batching', 0, {}) as IDataObject;
		return {
			size: Number(batching.batchSize ?? 1),
			delayMs: Number(batching.delayBetweenBatches ?? 0),
		};
	},
	hasApprovalOutput: (context) =>
		isTrue(context, 'governance', 0) && isTrue(context, 'needsApproval', 0),
	withToolFields(context, itemIndex, toolSettings, allowed) {
		// The fields are those of the allowed built-in tools: with none allowed, none counts.
		if (allowed.length === 0) return toolSettings;
		const settings = settingsFromToolFields(context, itemIndex, toolSettings, allowed);
		checkToolFieldValues(context, itemIndex, toolSettings, settings);
		return settings;
	},
	workflowToolsPath: 'options.workflowTools',
	credentialPickers: {
		redis: { label: CREDENTIAL_LABELS.agentCoreRedisApi, shownBy: 'Governance' },
		runState: { label: CREDENTIAL_LABELS.agentCoreRunStateApi, shownBy: 'Governance' },
	},
};
