// How a version 1 node's panel reads into a run: top-level fields, Limits and Options, as published.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { readField } from '../../shared/items';
import { sharedBudget, type GovernanceSwitch, type PanelVersion } from '../panel/version';
import { configFromPanel } from '../panel/settings';
import { agentCoreFieldNames } from '../panel/names';
import type { WorkflowToolRow } from '../execute/inputs/workflow-tools';

const on = (context: IExecuteFunctions, itemIndex: number, name: GovernanceSwitch) =>
	context.getNodeParameter(name, itemIndex, false) === true;

/** Version 1: every field where the panel of the first release put it. */
export const VERSION_1_PANEL: PanelVersion = {
	version: 1,
	fieldNames: agentCoreFieldNames(1),
	isResuming: (context, itemIndex) =>
		context.getNodeParameter('operation', itemIndex, 'run') === 'resume',
	readItem(context, itemIndex) {
		const sessionId = String(readField(context, 'sessionId', itemIndex, '') ?? '');
		const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const limits = context.getNodeParameter('limits', itemIndex, {}) as IDataObject;
		return {
			sessionId,
			developerText: context.getNodeParameter('developerText', itemIndex, '') as string,
			toolSettingsJson: context.getNodeParameter('toolSettingsJson', itemIndex, undefined),
			options,
			...(options.outputFormat === 'json' ? { outputSchema: { value: options.outputSchema } } : {}),
			config: { ...configFromPanel(1, { limits, options }), ...sharedBudget(limits) },
			workflowTools:
				(context.getNodeParameter('workflowTools.tools', itemIndex, []) as WorkflowToolRow[]) ?? [],
			switches: {
				needsApproval: on(context, itemIndex, 'needsApproval'),
				auditTrail: on(context, itemIndex, 'auditTrail'),
				durableRuns: on(context, itemIndex, 'durableRuns'),
			},
			credentialsShown: true,
		};
	},
	readBatching: (context) => ({
		size: Number(context.getNodeParameter('options.batchSize', 0, 1)),
		delayMs: Number(context.getNodeParameter('options.delayBetweenBatches', 0, 0)),
	}),
	hasApprovalOutput: (context) => on(context, 0, 'needsApproval'),
	withToolFields: (_context, _itemIndex, toolSettings) => toolSettings,
	workflowToolsPath: 'workflowTools',
	credentialPickers: { redis: {}, runState: {} },
};
