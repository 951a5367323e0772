// YCLIENTS as it plugs into the composition (src/features.ts).
import { defineFeature } from '../../platform/feature';
import { bookingSlot, createBookingApi } from './api';
import { bookingRouter } from './router';

export const bookingFeature = defineFeature({
  slot: bookingSlot,
  create: createBookingApi,
  start({ booking }, { lifecycle }) {
    booking.sync.start();
    lifecycle.onShutdown('booking sync', () => booking.sync.stop());
  },
  routers: { booking: bookingRouter },
});
