// Builds the web UI into dist/web, which the server serves at `/` (src/http/web-ui.ts).
// `npm run dev:web` serves it with hot reload and forwards the API to a running `npm start`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const api = process.env.SIGHTLINE_DEV_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    // One app for people at work on a LAN: a few hundred kB is fine; pages still load lazily.
    chunkSizeWarningLimit: 800,
  },
  server: { proxy: { '/v1': api, '/docs': api } },
});
