import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { ru } from 'zod/locales';
import { App } from './App';

// The server speaks Russian in zod's default messages too (src/http/errors.ts); so do the forms.
z.config(ru());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
