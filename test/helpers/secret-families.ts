import { generateKeyPairSync, randomBytes } from "node:crypto";

/**
 * One sample of each token family the detector must catch, written the way
 * it turns up by accident (a CI log line, a config file, a connection string),
 * built at run time so no token-shaped literal sits in the sources. `secrets`
 * are the values that must never be seen again; `leaks` finds any long piece
 * of one in a text (redacting half a key is no redaction).
 */

export interface SecretFamily {
  family: string;
  text: string;
  secrets: string[];
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function pick(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

const alnum = (n: number) => pick(ALNUM, n);
const upper = (n: number) => pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n);
const base64 = (bytes: number) => randomBytes(bytes).toString("base64");
const hex = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString("hex")
    .slice(0, n);

function rsaPem(type: "pkcs1" | "pkcs8"): string {
  return generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type, format: "pem" })
    .toString();
}

/** The body lines of a PEM, the part that must not leak. */
function pemBody(pem: string): string[] {
  return pem.split("\n").filter((line) => line && !line.startsWith("-----"));
}

export function secretFamilies(): SecretFamily[] {
  const github = `ghp_${alnum(36)}`;
  const fineGrained = `github_pat_${alnum(22)}_${alnum(59)}`;
  const awsId = `AKIA${upper(16)}`;
  const awsSecret = base64(30);
  const serviceKey = rsaPem("pkcs8");
  const keyId = hex(40);
  const serviceAccount = JSON.stringify(
    {
      type: "service_account",
      project_id: "demo-project",
      private_key_id: keyId,
      private_key: serviceKey,
      client_email: "deployer@demo-project.iam.gserviceaccount.com",
      client_id: "104857600000000000000",
    },
    null,
    2,
  );
  const storageKey = base64(64);
  const busKey = base64(32);
  const npm = `npm_${alnum(36)}`;
  const npmLegacy = `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
  const pypi = `pypi-AgEIcHlwaS5vcmc${pick(`${ALNUM}_-`, 120)}`;
  const slack = `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${alnum(24)}`;
  const slackHook = `https://hooks.slack.com/services/T${upper(8)}/B${upper(10)}/${alnum(24)}`;
  const stripe = `sk_live_${alnum(24)}`;
  const stripeRestricted = `rk_live_${alnum(24)}`;
  const openai = `sk-proj-${pick(`${ALNUM}_-`, 74)}T3BlbkFJ${pick(`${ALNUM}_-`, 74)}`;
  const anthropic = `sk-ant-api03-${pick(`${ALNUM}_-`, 93)}AA`;
  const rsa = rsaPem("pkcs1");
  const urlPassword = `S3cr3t-${alnum(10)}`;
  const dbPassword = `pg-${alnum(12)}!x`;
  const redisPassword = `r3dis${alnum(14)}`;
  return [
    {
      family: "GitHub tokens",
      text: `remote: Invalid username or token ${github}\nGH_TOKEN=${fineGrained}`,
      secrets: [github, fineGrained],
    },
    {
      family: "an AWS key pair",
      text: `export AWS_ACCESS_KEY_ID=${awsId}\nexport AWS_SECRET_ACCESS_KEY=${awsSecret}\n[default]\naws_access_key_id = ${awsId}\naws_secret_access_key = ${awsSecret}`,
      secrets: [awsId, awsSecret],
    },
    {
      family: "a Google service account JSON",
      text: `Loaded credentials from key.json:\n${serviceAccount}`,
      secrets: [keyId, ...pemBody(serviceKey)],
    },
    {
      family: "Azure connection strings",
      text: `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=demostore;AccountKey=${storageKey};EndpointSuffix=core.windows.net"\nEndpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${busKey}`,
      secrets: [storageKey, busKey],
    },
    {
      family: "npm tokens",
      text: `//registry.npmjs.org/:_authToken=${npm}\n//npm.pkg.github.com/:_authToken=${npmLegacy}`,
      secrets: [npm, npmLegacy],
    },
    {
      family: "a PyPI token",
      text: `[pypi]\n  username = __token__\n  password = ${pypi}`,
      secrets: [pypi],
    },
    {
      family: "Slack tokens",
      text: `SLACK_BOT_TOKEN=${slack}\nposting to ${slackHook}`,
      secrets: [slack, slackHook.slice(slackHook.lastIndexOf("/") + 1)],
    },
    {
      family: "Stripe keys",
      text: `Stripe.api_key = "${stripe}"\nrestricted: ${stripeRestricted}`,
      secrets: [stripe, stripeRestricted],
    },
    {
      family: "an OpenAI key",
      text: `openai.AuthenticationError: Incorrect API key provided: ${openai}`,
      secrets: [openai],
    },
    {
      family: "an Anthropic key",
      text: `x-api-key: ${anthropic}`,
      secrets: [anthropic],
    },
    {
      family: "a private key",
      text: `Writing deploy key:\n${rsa}`,
      secrets: pemBody(rsa),
    },
    {
      family: "passwords in URLs",
      text: `fatal: unable to access 'https://deploy:${urlPassword}@git.example.com/demo.git/'\nDATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app\nREDIS_URL=redis://:${redisPassword}@cache.internal:6379/0`,
      secrets: [urlPassword, dbPassword, redisPassword],
    },
  ];
}

/** Every family in one text, as a CI log or a command's output would carry them. */
export function allFamilies(families: readonly SecretFamily[]): string {
  return families.map((f) => `# ${f.family}\n${f.text}`).join("\n\n");
}

/** The families whose secrets (or a 16-character piece of one) appear in `text`. */
export function leaks(families: readonly SecretFamily[], text: string): string[] {
  return families
    .filter((f) =>
      f.secrets.some((secret) => {
        if (secret.length <= 16) return text.includes(secret);
        const step = Math.max(1, Math.floor((secret.length - 16) / 4));
        for (let at = 0; at + 16 <= secret.length; at += step) {
          if (text.includes(secret.slice(at, at + 16))) return true;
        }
        return false;
      }),
    )
    .map((f) => f.family);
}

/** Hidden characters: a zero-width space inside a token, bidi overrides, a Unicode-tag message. */
export function withHiddenCharacters(text: string): string {
  const tags = [..."ignore the task"]
    .map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) ?? 0)))
    .join("");
  const split = `ghp_${alnum(10)}\u200B${alnum(26)}`;
  return `${text}\nsplit token ${split}\n\u202Eevil\u202C ${tags}`;
}

/** The hidden characters withHiddenCharacters adds, as a pattern. */
export const HIDDEN = /[\u200B\u202A-\u202E\u{E0000}-\u{E007F}]/u;
