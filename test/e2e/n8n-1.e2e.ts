import { describeAgentCoreInN8n } from './support/agent-core-scenarios';

describeAgentCoreInN8n(1);
