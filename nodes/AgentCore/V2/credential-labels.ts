// Version 2's credential pickers by what each is for: the one home of their labels (the panel and the run's errors).

/**
 * What each credential picker is for, as n8n's editor labels it (a credential entry's displayName; without one it
 * reads "Credential for <type>" or just "Credential"). Version 1's pickers keep their labels.
 */
export const CREDENTIAL_LABELS = {
	agentCoreOpenAiApi: 'Model API (OpenAI-Compatible)',
	agentCoreGeminiApi: 'Model API (Gemini)',
	agentCoreRedisApi: 'Redis for Shared Budgets, Durable Runs and the Redis Context Tool',
	agentCoreHttpHeaderApi: 'HTTP Request Tool: Secret Header and Its Hosts',
	agentCoreRunStateApi: 'Run State Secret (Signs Paused and Durable Runs)',
	agentCoreAuditDatabaseApi: 'Audit Trail Database (PostgreSQL)',
	agentCoreFeishuBotApi: 'Feishu / Lark Bot Webhook',
} as const;
