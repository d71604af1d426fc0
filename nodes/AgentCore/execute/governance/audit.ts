// Governance → Audit Trail: the audit database credential as connection settings, its test, and a run's audit options.
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import {
	pingAuditDatabase,
	type PostgresTarget,
	type RunAgentOptions,
} from '../../../../src/run-path';

/** The "Agent Core: Audit Database" credential's fields as connection settings. */
export function auditTargetFromCredential(data: ICredentialDataDecryptedObject): PostgresTarget {
	const ssl =
		data.ssl === 'require'
			? { rejectUnauthorized: true }
			: data.ssl === 'allow-unverified'
				? { rejectUnauthorized: false }
				: false;
	return {
		host: (data.host as string) || 'localhost',
		port: Number(data.port) || 5432,
		database: data.database as string,
		user: data.user as string,
		...(data.password ? { password: data.password as string } : {}),
		ssl,
	};
}

/** The credential test: connects, runs SELECT 1, closes. */
export async function testAuditDatabaseCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const result = await pingAuditDatabase(auditTargetFromCredential(credential.data ?? {}));
	return result.ok
		? { status: 'OK', message: `Connected (SELECT 1 in ${result.latencyMs} ms)` }
		: { status: 'Error', message: result.message };
}

/**
 * Audit Trail on (the caller asks only then): the run goes to the credential's database with the workflow,
 * execution and node it came from; Audit Retention (Days) deletes older runs (0 keeps them).
 */
export async function readAudit(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<Pick<RunAgentOptions, 'audit'>> {
	const target = auditTargetFromCredential(
		await context.getCredentials('agentCoreAuditDatabaseApi', itemIndex),
	);
	const retentionDays =
		Number(context.getNodeParameter('auditRetentionDays', itemIndex, 0)) || undefined;
	const origin = {
		workflow_id: String(context.getWorkflow().id ?? ''),
		execution_id: String(context.getExecutionId() ?? ''),
		node_name: context.getNode().name,
	};
	return { audit: { postgres: target, retentionDays, origin } };
}
