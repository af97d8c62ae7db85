// How a family asks the families built on it: they import it, so it cannot import them back. Each
// lends its parts from its manifest's `hooks` (src/platform/family.ts), which registerFamilies runs
// before anything else; asking for a part nobody lent throws, naming it.

export interface LendingDesk<Lent> {
  /** Lends parts; lending a part again replaces it. */
  lend(parts: Partial<Lent>): void
  /** The part lent under a name. */
  part<Name extends keyof Lent>(name: Name): Lent[Name]
}

export function lendingDesk<Lent>(family: string): LendingDesk<Lent> {
  const lent: Partial<Lent> = {}
  return {
    lend: (parts) => void Object.assign(lent, parts),
    part: (name) => {
      const part = lent[name]
      if (part === undefined)
        throw new Error(
          `${family}: no family lent ${String(name)}; registerFamilies() lends every family's parts`,
        )
      return part as NonNullable<typeof part>
    },
  }
}
