// Vite writes plain names (`[name].js`): the fingerprints are bindery's, made from the bytes it
// embeds, so a page links exactly what the binary serves.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const source = fileURLToPath(new URL("./src", import.meta.url));

export default defineConfig({
  root: source,
  base: "/static/",
  logLevel: "warn",
  build: {
    emptyOutDir: true,
    assetsInlineLimit: 0,
    manifest: false,
    rollupOptions: {
      input: `${source}/main.js`,
      output: {
        entryFileNames: "[name].js",
        chunkFileNames: "[name].js",
        assetFileNames: "[name][extname]",
      },
    },
  },
});
