import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { ru } from 'zod/locales';
import { api } from './api';
import { App } from './App';
import { queryClient, TRPCProvider } from './trpc';

// The server speaks Russian in zod's default messages too (src/http/errors.ts); so do the forms.
z.config(ru());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={api} queryClient={queryClient}>
        <App />
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
