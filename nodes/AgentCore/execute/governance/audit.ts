import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import {
	ambientTracer,
	pingAuditDatabase,
	tracingFromEnvironment,
	type PostgresTarget,
	type RunAgentOptions,
	type RunTracing,
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

let ownTracing: RunTracing | undefined | null = null;

/**
 * The tracer for the run's spans: n8n's own, when the process has a global OpenTelemetry provider; else
 * Agent Core's OTLP/HTTP export when OTEL_EXPORTER_OTLP_ENDPOINT is set (one per process); else none.
 */
export function runTracer(): Pick<RunAgentOptions, 'tracer'> {
	const ambient = ambientTracer();
	if (ambient) return { tracer: ambient };
	if (ownTracing === null) ownTracing = tracingFromEnvironment();
	return ownTracing ? { tracer: ownTracing.tracer } : {};
}
