import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Beside a debug build of the server (docs/pipelines.md, "The loop"), the page comes from the
// Rust server and its modules from here: VITE_DEV_SERVER, the one origin both are given, is
// where this listens and what the asset URLs it writes start with. `vite build` ignores it.
const origin = process.env.VITE_DEV_SERVER
const at = origin ? new URL(origin) : null

// https://vite.dev/config/
export default defineConfig({
  plugins: [react()],
  server: at ? { origin, host: at.hostname, port: Number(at.port), strictPort: true } : {},
})
