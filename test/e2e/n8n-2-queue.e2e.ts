import { describeBusySessionInQueueMode } from './support/busy-session-scenarios';
import { describeAgentCoreInQueueMode } from './support/queue-mode-scenarios';

describeAgentCoreInQueueMode(2);
describeBusySessionInQueueMode(2);
