// Placeholder entry: the renderer issue replaces this with the console's screens.
import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(<p>Paydesk</p>);
