// n8n's internal REST API (/rest) as the instance owner, as the editor calls it: set-up or sign-in, then requests with its cookie.

/** The owner the e2e suites sign up as on a fresh instance. */
export const OWNER = {
	email: 'owner@agent-core.example.com',
	firstName: 'Agent',
	lastName: 'Core',
	password: 'E2e-Owner-Password-1',
};
/** n8n binds its auth cookie (n8n-auth) to the browser-id header it was issued with. */
const BROWSER_ID = 'agent-core-e2e-browser';

export interface RestResponse {
	status: number;
	text: string;
	body: any;
}

/**
 * The owner's session. `POST /rest/owner/setup` is accepted once, on an instance without an owner; then
 * `POST /rest/login` (`emailOrLdapLoginId`, as in n8n 1.123 and 2.41: controllers/auth.controller.ts) gives the
 * auth cookie.
 */
export class OwnerSession {
	private cookie = '';

	constructor(private readonly origin: string) {}

	async signIn(): Promise<void> {
		const setUp = await this.request('POST', '/rest/owner/setup', OWNER);
		// Always signed in afterwards: on a fresh n8n 2.41 the set-up's own cookie was refused (401) by the next request.
		const signedIn = await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: OWNER.email,
			password: OWNER.password,
		});
		if (signedIn.status !== 200)
			throw new Error(
				`n8n refused the owner set-up (${setUp.status}: ${setUp.text.slice(0, 500)}) and the sign-in (${signedIn.status}: ${signedIn.text.slice(0, 500)})`,
			);
	}

	async request(
		method: 'GET' | 'POST' | 'PUT',
		path: string,
		body?: unknown,
	): Promise<RestResponse> {
		const response = await fetch(`${this.origin}${path}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': BROWSER_ID,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(30000),
		});
		const issued = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (issued) this.cookie = issued.split(';')[0];
		const text = await response.text();
		return { status: response.status, text, body: parseJsonOrUndefined(text) };
	}
}

/** A response body as JSON, or undefined when it is not JSON (n8n answers some errors as text). */
export function parseJsonOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** The body's `data` (n8n's REST envelope) of a 2xx answer; otherwise fails naming what was asked and what n8n said. */
function dataOf(response: RestResponse, what: string): any {
	if (response.status < 200 || response.status > 299)
		throw new Error(`n8n refused ${what}: HTTP ${response.status} ${response.text.slice(0, 1000)}`);
	return response.body?.data ?? response.body;
}

/** The id of the owner's personal project, where the editor creates workflows and Data Tables (`GET /rest/projects/personal`). */
export async function personalProjectId(owner: OwnerSession): Promise<string> {
	return dataOf(await owner.request('GET', '/rest/projects/personal'), 'the personal project').id;
}

/** A credential the instance holds, by type and name, as the editor's picker lists it (`GET /rest/credentials`). */
export async function credentialNamed(
	owner: OwnerSession,
	type: string,
	name: string,
): Promise<{ id: string; name: string }> {
	const credentials = dataOf(
		await owner.request('GET', '/rest/credentials'),
		'the credentials list',
	) as Array<{ id: string; name: string; type: string }>;
	const found = credentials.find(
		(credential) => credential.type === type && credential.name === name,
	);
	if (!found)
		throw new Error(
			`n8n holds no ${type} credential named ${name} (it has ${credentials.map((credential) => `${credential.type} "${credential.name}"`).join(', ') || 'none'})`,
		);
	return { id: found.id, name: found.name };
}

/**
 * A Data Table with `rows` in the project, as the editor makes one (n8n 2.41's data-table module, on by default:
 * `POST /rest/projects/:projectId/data-tables`, then `…/:dataTableId/insert`). Resolves with its id.
 */
export async function createDataTable(
	owner: OwnerSession,
	projectId: string,
	table: {
		name: string;
		columns: Array<{ name: string; type: 'string' | 'number' | 'boolean' | 'date' }>;
		rows: Array<Record<string, string | number | boolean>>;
	},
): Promise<string> {
	const base = `/rest/projects/${projectId}/data-tables`;
	const { id } = dataOf(
		await owner.request('POST', base, { name: table.name, columns: table.columns }),
		`to create the Data Table ${table.name}`,
	);
	dataOf(
		await owner.request('POST', `${base}/${id}/insert`, { data: table.rows, returnType: 'count' }),
		`the rows of the Data Table ${table.name}`,
	);
	return id;
}

/** A workflow saved as the editor saves a new one (`POST /rest/workflows`), not published. Resolves with its id. */
export async function createWorkflow(
	owner: OwnerSession,
	workflow: { name: string; nodes: unknown[]; connections: unknown },
): Promise<string> {
	return dataOf(
		await owner.request('POST', '/rest/workflows', {
			...workflow,
			settings: { executionOrder: 'v1' },
		}),
		`to save the workflow ${workflow.name}`,
	).id;
}

/** A test run's record as `GET /rest/workflows/:workflowId/test-runs/:id` gives it (evaluation.ee/test-runs.controller.ee.js). */
export interface TestRunSummary {
	id: string;
	status: 'new' | 'running' | 'completed' | 'error' | 'cancelled';
	metrics: Record<string, number> | null;
	errorCode?: string | null;
	errorDetails?: unknown;
	[key: string]: unknown;
}

/** One dataset row's case of a test run (`GET …/test-runs/:id/test-cases`). */
export interface TestCaseRecord {
	runIndex: number;
	status: string;
	metrics: Record<string, number> | null;
	executionId: string | null;
	errorCode?: string | null;
	[key: string]: unknown;
}

/**
 * Starts an evaluation of the workflow as the editor's "Run evaluation" does (`POST
 * /rest/workflows/:workflowId/test-runs/new`, answered 202 with the run's id, outside the REST envelope).
 */
export async function startTestRun(owner: OwnerSession, workflowId: string): Promise<string> {
	const started = await owner.request('POST', `/rest/workflows/${workflowId}/test-runs/new`, {});
	if (started.status !== 202 || typeof started.body?.testRunId !== 'string')
		throw new Error(
			`n8n did not start a test run of workflow ${workflowId}: HTTP ${started.status} ${started.text.slice(0, 1000)}`,
		);
	return started.body.testRunId;
}

/** The test run once it is no longer `new` or `running`, polled every 500 ms; fails after `timeoutMs` with its last record. */
export async function finishedTestRun(
	owner: OwnerSession,
	workflowId: string,
	testRunId: string,
	timeoutMs: number,
): Promise<TestRunSummary> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const run = dataOf(
			await owner.request('GET', `/rest/workflows/${workflowId}/test-runs/${testRunId}`),
			`test run ${testRunId}`,
		) as TestRunSummary;
		if (run.status !== 'new' && run.status !== 'running') return run;
		if (Date.now() > deadline)
			throw new Error(
				`test run ${testRunId} still ${run.status} after ${timeoutMs / 1000} s: ${JSON.stringify(run).slice(0, 1000)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** The test run's cases, one per dataset row, in row order. */
export async function testCasesOf(
	owner: OwnerSession,
	workflowId: string,
	testRunId: string,
): Promise<TestCaseRecord[]> {
	const cases = dataOf(
		await owner.request('GET', `/rest/workflows/${workflowId}/test-runs/${testRunId}/test-cases`),
		`the cases of test run ${testRunId}`,
	) as TestCaseRecord[];
	return [...cases].sort((first, second) => first.runIndex - second.runIndex);
}

/**
 * How many executions of a workflow n8n lists (`GET /rest/executions?filter={"workflowId":…}`, running and
 * finished, at most 100), e.g. the sub-workflow runs a workflow tool started.
 */
export async function executionCountOf(owner: OwnerSession, workflowId: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = dataOf(
		await owner.request('GET', `/rest/executions?filter=${filter}&limit=100`),
		`the executions of workflow ${workflowId}`,
	);
	return page.results.length;
}
