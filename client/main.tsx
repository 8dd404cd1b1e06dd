import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { initLanguage } from './lib/i18n';
import './styles.css';

// Spanish (the default) is in this chunk: the first render waits only for an English reader's copy.
const root = document.getElementById('root');
initLanguage().then(() => {
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
