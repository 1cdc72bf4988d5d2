import { z } from 'zod';

/**
 * Scans a proposed SKILL.md for injection and exfiltration patterns before a person sees it.
 * Findings never block a proposal; they are stored with the draft, shown in the review queue, and
 * approving a flagged draft needs an explicit, audited override.
 */
export const Finding = z.object({
  rule: z.string(),
  message: z.string(),
  /** The matched text, trimmed, so the reviewer sees what fired. */
  excerpt: z.string(),
  line: z.number().int().positive(),
});
export type Finding = z.infer<typeof Finding>;

interface Rule {
  rule: string;
  message: string;
  pattern: RegExp;
}

const rules: Rule[] = [
  {
    rule: 'instruction-override',
    message: 'Tries to override earlier instructions or the system prompt.',
    pattern:
      /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|system|safety)\b[^.\n]{0,20}\b(instructions?|prompts?|rules?|guidelines?|messages?)\b|\b(you are now|new system prompt|act as (?:an? )?(?:unrestricted|jailbroken))\b/i,
  },
  {
    rule: 'pipe-to-shell',
    message: 'Downloads a script and pipes it straight into a shell.',
    pattern: /\b(curl|wget|fetch)\b[^|\n]*\|\s*(sudo\s+)?(ba|z|k|da)?sh\b|\b(ba)?sh\s+<\(\s*(curl|wget)\b/i,
  },
  {
    rule: 'credential-read',
    message: 'Reads SSH keys or credential files.',
    pattern:
      /~\/\.ssh\b|\$HOME\/\.ssh\b|\/\.ssh\/(id_|authorized_keys|config)|\bid_(rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\.docker\/config\.json|\.netrc\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.kube\/config|gcloud\/credentials|\/etc\/shadow\b/i,
  },
  {
    rule: 'env-dump',
    message: 'Dumps the environment (where secrets live).',
    pattern:
      /(^|[\s;&|`$(])(printenv|env|export\s+-p|set)\s*($|[|>;&)`])|\/proc\/(self|\d+)\/environ|process\.env\b(?!\.[A-Z_])|os\.environ\b(?!\[|\.get)/im,
  },
  {
    rule: 'base64-blob',
    message: 'Contains a long base64 blob (hidden payload).',
    pattern: /[A-Za-z0-9+/]{160,}={0,2}/,
  },
];

const URL_PATTERN = /\bhttps?:\/\/([A-Za-z0-9.-]+)(?::\d+)?[^\s)"'<>]*/gi;

/** Hosts a skill may mention freely; any other URL is flagged (an exfiltration or payload endpoint). */
export const defaultAllowedHosts = [
  'github.com',
  'docs.github.com',
  'gitlab.com',
  'npmjs.com',
  'www.npmjs.com',
  'nodejs.org',
  'developer.mozilla.org',
  'docs.python.org',
  'pypi.org',
  'docs.docker.com',
  'localhost',
  '127.0.0.1',
  'example.com',
];

export function scanSkill(markdown: string, allowedHosts: readonly string[] = defaultAllowedHosts): Finding[] {
  const findings: Finding[] = [];
  const lines = markdown.split('\n');
  lines.forEach((text, i) => {
    for (const r of rules) {
      const m = r.pattern.exec(text);
      if (m) findings.push({ rule: r.rule, message: r.message, excerpt: excerpt(m[0]), line: i + 1 });
    }
    for (const m of text.matchAll(URL_PATTERN)) {
      const host = (m[1] ?? '').toLowerCase();
      const allowed = allowedHosts.some((h) => host === h || host.endsWith(`.${h}`));
      if (!allowed)
        findings.push({
          rule: 'url-not-allowed',
          message: `Links to ${host}, which is not on the allow-list.`,
          excerpt: excerpt(m[0]),
          line: i + 1,
        });
    }
  });
  return findings;
}

const excerpt = (s: string): string => (s.length > 120 ? `${s.slice(0, 117)}...` : s).trim();
