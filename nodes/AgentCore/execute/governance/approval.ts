import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
} from 'n8n-workflow';
import {
	DEFAULT_CONFIG,
	stateSecretProblem,
	type ApprovalDecision,
} from '../../../../src/run-path';
import { nodeError } from '../../../shared/node-errors';
import { missingCredential, type CredentialPicker } from './missing-credential';

/** The Run State credential's type: its signing secret signs and seals paused runs' states and durable runs' checkpoints. */
const RUN_STATE_CREDENTIAL = 'agentCoreRunStateApi';

/**
 * The Run State credential's signing secret, for `user` (named in the error when no credential is chosen).
 * The picker is optional in version 2 (n8n shows a credential under one set of conditions, and two
 * switches need it), so each use says when it is missing, naming the `picker` (PanelVersion.credentialPickers).
 */
export async function readStateSecret(
	context: IExecuteFunctions,
	itemIndex: number,
	user: string,
	picker: CredentialPicker,
): Promise<string> {
	if (!context.getNode().credentials?.[RUN_STATE_CREDENTIAL]) {
		const why = ": its signing secret signs and seals the run's state";
		const { message, fix } = missingCredential('runState', user, picker, why);
		throw nodeError(context, message, itemIndex, fix);
	}
	const credentials = await context.getCredentials(RUN_STATE_CREDENTIAL, itemIndex);
	return String(credentials.signingSecret ?? '');
}

/**
 * With Require Approval (the caller asks only then): the tools whose calls wait for a person, the Run State
 * credential's signing key, and how many days a paused run's state is accepted (the config's run_state_max_age_days).
 */
export async function readApproval(
	context: IExecuteFunctions,
	itemIndex: number,
	picker: CredentialPicker,
): Promise<{ tools: string[]; stateSecret?: string; maxAgeDays?: number }> {
	const tools = context.getNodeParameter('approvalTools', itemIndex, []) as string[];
	const maxAgeDays = context.getNodeParameter(
		'runStateMaxAgeDays',
		itemIndex,
		DEFAULT_CONFIG.run_state_max_age_days,
	) as number;
	return {
		tools,
		stateSecret: await readStateSecret(context, itemIndex, 'Require Approval', picker),
		maxAgeDays,
	};
}

/**
 * Options → Require Approval of the Plan (version 2, issue #51) pauses the way Require Approval does: its Run State
 * credential signs the plan, its Needs Approval output takes the item, Run or Resume continues it. Asked when the
 * plan's approval is on: without Require Approval on too, an error that says so before anything runs.
 */
export function checkPlanApproval(
	context: IExecuteFunctions,
	itemIndex: number,
	needsApproval: boolean,
): void {
	if (needsApproval) return;
	throw nodeError(
		context,
		'Require Approval of the Plan needs Governance → Require Approval on',
		itemIndex,
		'Turn on Governance and Require Approval (its Run State credential signs the paused plan, the Needs Approval ' +
			'output takes it and Run or Resume → Resume continues it), or turn off Options → Require Approval of the Plan.',
	);
}

/** Operation → Resume: the paused run's state and the person's decision, as the panel gives them. */
export function readResume(
	context: IExecuteFunctions,
	itemIndex: number,
): { runState: unknown; decision: ApprovalDecision } {
	const runState = context.getNodeParameter('runState', itemIndex, undefined) as unknown;
	if (runState === undefined || runState === null || runState === '') {
		throw nodeError(
			context,
			'Run State is empty',
			itemIndex,
			'Map the run_state of the paused run, e.g. {{ $json.run_state }} from the Needs Approval output.',
		);
	}
	const decision = context.getNodeParameter('decision', itemIndex) as string;
	if (decision === 'approve') return { runState, decision: { approve: true } };
	if (decision === 'deny')
		return {
			runState,
			decision: { deny: String(context.getNodeParameter('denyReason', itemIndex, '') ?? '') },
		};
	if (decision === 'edit') {
		const edit = jsonParameter(context, itemIndex, 'editedArgs', 'Edited Arguments', {
			fix: "Write the call's new arguments as one JSON object.",
		});
		return { runState, decision: { edit: edit as IDataObject } };
	}
	if (decision === 'calls') {
		const calls = jsonParameter(context, itemIndex, 'callDecisions', 'Call Decisions', {
			fix: 'Write the decisions by call number as one JSON object, e.g. { "2": { "approve": true } }.',
		});
		return { runState, decision: { calls: calls as never } };
	}
	throw nodeError(
		context,
		`Decision must be approve, deny, edit or calls, not "${decision}"`,
		itemIndex,
		'Map the approval step\'s answer to one of the three, e.g. {{ $json.data.approved ? "approve" : "deny" }}.',
	);
}

/** A JSON field's value (the panel gives text, an expression may give the object), or an error naming it. */
function jsonParameter(
	context: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	{ fix }: { fix: string },
): unknown {
	const given = context.getNodeParameter(name, itemIndex) as unknown;
	try {
		return typeof given === 'string' ? JSON.parse(given) : given;
	} catch (error) {
		throw nodeError(
			context,
			`${label} is not valid JSON: ${(error as Error).message}`,
			itemIndex,
			fix,
		);
	}
}

/** Items of a paused run go to the Needs Approval output, the rest to the first, each keeping its pairing. */
export function routeByApproval(
	items: INodeExecutionData[],
	needsApproval: boolean,
): INodeExecutionData[][] {
	if (!needsApproval) return [items];
	const waiting = (item: INodeExecutionData) => item.json.finish_reason === 'awaiting_approval';
	return [items.filter((item) => !waiting(item)), items.filter(waiting)];
}

/** The Test button of the Run State credential: the signing secret must be long and varied enough; nothing is sent. */
export async function testRunStateCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const problem = stateSecretProblem(String(credential.data?.signingSecret ?? ''));
	return problem
		? { status: 'Error', message: problem }
		: { status: 'OK', message: 'The signing secret is strong enough to sign run states' };
}
