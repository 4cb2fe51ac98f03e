import './trusted-types.ts';
import { render } from 'preact';
import { App } from './app/App.tsx';
import { initLanguage } from './app/i18n/index.ts';
import { createServices } from './app/services.ts';
import './app/styles.css';

// Before the first render: saved choice, else the browser's languages.
initLanguage();
const services = createServices();
// Exposed for end-to-end tests and field debugging from the console. Apps embedding Lantern use
// the package instead (docs/API.md); this handle is the same Lantern object.
(globalThis as { lantern?: unknown }).lantern = services.lantern;
render(<App services={services} />, document.getElementById('app')!);
