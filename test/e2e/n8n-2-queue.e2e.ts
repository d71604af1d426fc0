import { describeAgentCoreInQueueMode } from './support/queue-mode-scenarios';

describeAgentCoreInQueueMode(2);
