import { createRoot } from 'react-dom/client';

// Placeholder until the web client lands: the server and API are usable on their own.
function Placeholder() {
  return (
    <main style={{ fontFamily: 'system-ui', padding: 24 }}>
      <h1>Eventmatch</h1>
      <p>The API is running. The web client is being built.</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<Placeholder />);
