// The integrations/booking feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { bookingSlot } from './api';
export type { Booking } from './module';
export type { BookableService, BookingService, FreeSlot, Specialist } from './service';
export type { BookingSettings } from './settings';
