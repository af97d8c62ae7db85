// Files imported `with { type: 'file' }`: Bun gives their path, embedded in a compiled binary.
declare module '@scalar/api-reference/browser/standalone.js' {
  const path: string
  export default path
}
