// The agents feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { agentsSlot } from './api';
export type { Agent, AgentService, AgentType, WorkingHours } from './service';
export { type Availability, availabilityAt, waitingFrom, workingMsBetween, zoneOf } from './working-hours';
