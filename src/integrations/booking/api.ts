// YCLIENTS: the settings, the cached specialists and services, free slots, appointments, the sync job.
import { type Base, defineSlot } from '../../platform/feature';
import { createBooking } from './module';

export function createBookingApi({ db, database, config, logger, secretBox }: Base) {
  return { booking: createBooking({ db, database, config, logger, box: secretBox }) };
}

export type BookingApi = ReturnType<typeof createBookingApi>;
export const bookingSlot = defineSlot<BookingApi>('booking');
