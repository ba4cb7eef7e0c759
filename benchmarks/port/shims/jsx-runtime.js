// SHIM (not React). report.tsx contains one React component (AttuneBenchReportView) next to the
// scoring helper computeReportScores that the harness uses. esbuild's automatic JSX transform
// imports react/jsx-runtime; the harness never renders, so these are inert stand-ins.
export function jsx(type, props) { return { type, props } }
export const jsxs = jsx
export const Fragment = Symbol.for('react.fragment')
