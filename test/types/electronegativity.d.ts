// The scanner ships no types; this is the part of its programmatic API the security test uses.
declare module '@doyensec/electronegativity' {
  interface Issue {
    id: string;
    file: string;
    severity: { name: string } | string;
    description: string;
  }
  const run: (options: Record<string, unknown>) => Promise<{ errors: unknown[]; issues: Issue[] }>;
  export default run;
}
