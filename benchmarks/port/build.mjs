// Bundles harness.ts and the port's files (src/, fetched by fetch_port.py) into harness.js, one
// Node script: `node build.mjs` after `npm ci` in this folder. Two imports of report.tsx that
// scoring does not need are replaced by the shims in shims/ (each file says why).
import * as esbuild from 'esbuild'
import path from 'node:path'

const here = path.dirname(new URL(import.meta.url).pathname)
const shimPlugin = {
  name: 'port-shims',
  setup(build) {
    build.onResolve({ filter: /^\.\/client\.ts$/ }, (args) =>
      args.importer.endsWith(path.join('src', 'report.tsx'))
        ? { path: path.join(here, 'shims', 'client.ts') }
        : undefined,
    )
    build.onResolve({ filter: /^react\/jsx-runtime$/ }, () => ({
      path: path.join(here, 'shims', 'jsx-runtime.js'),
    }))
  },
}

await esbuild.build({
  entryPoints: [path.join(here, 'harness.ts')],
  outfile: path.join(here, 'harness.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  jsx: 'automatic',
  plugins: [shimPlugin],
  logLevel: 'info',
})
