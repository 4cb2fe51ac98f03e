import './trusted-types.ts';
import { render } from 'preact';
import { App } from './app/App.tsx';
import { initLanguage } from './app/i18n/index.ts';
import { createServices } from './app/services.ts';
import './app/styles.css';

const services = createServices();
// Exposed for end-to-end tests and field debugging from the console. Apps embedding Lantern use
// the package instead (docs/API.md); this handle is the same Lantern object.
(globalThis as { lantern?: unknown }).lantern = services.lantern;
// The first render waits for the saved (else the browser's) language, so a Hindi reader never
// sees an English flash; English is already here, another catalog is one precached file.
void initLanguage().then(() => render(<App services={services} />, document.getElementById('app')!));
