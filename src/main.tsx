import './trusted-types.ts';
import './runtime/zod-jitless.ts';
import { render } from 'preact';
import { App } from './app/App.tsx';
import { initLanguage } from './app/i18n/index.ts';
import { createServices } from './app/services.ts';
import './app/styles.css';

// Before the first render: saved choice, else the browser's languages.
initLanguage();
const services = createServices();
// Exposed for end-to-end tests and field debugging from the console; not an API contract.
(globalThis as { lantern?: unknown }).lantern = services.lantern;
render(<App services={services} />, document.getElementById('app')!);
