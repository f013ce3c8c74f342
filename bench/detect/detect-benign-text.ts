// Benign texts of the detection benchmark's corpus (detect-corpus.ts): web requests and user
// agents, syslog lines and application messages as ordinary servers write them.

export const WEB_TARGETS = [
  '/',
  '/api/v1/orders/{n}',
  '/api/v1/users/{n}/profile',
  '/static/js/app.{h}.js',
  '/static/css/main.{h}.css',
  '/images/products/{n}.jpg',
  '/search?q=invoice+{n}&page=2',
  '/cart/checkout',
  '/api/v2/reports/{n}/export?format=csv',
  '/login',
  '/health',
  '/favicon.ico',
  '/api/v1/orders?status=open&limit=50&cursor={h}',
  '/products?category=garden&sort=price&utm_source=newsletter',
];
export const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'kube-probe/1.31',
  'curl/8.5.0',
  'python-requests/2.32.3',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
];
export const STATUSES = [
  '200',
  '200',
  '200',
  '200',
  '200',
  '200',
  '200',
  '200',
  '304',
  '304',
  '301',
  '201',
  '204',
  '302',
  '404',
  '500',
];
export const SYSLOG_LINES: [string, string, string][] = [
  ['sshd', 'authpriv', 'Accepted publickey for {user} from {ip} port {port} ssh2: ED25519 SHA256:{h}'],
  ['sshd', 'authpriv', 'Connection closed by {ip} port {port} [preauth]'],
  ['sshd', 'authpriv', 'Received disconnect from {ip} port {port}:11: disconnected by user'],
  ['sshd', 'authpriv', 'pam_unix(sshd:session): session opened for user {user}(uid=1000) by (uid=0)'],
  ['sudo', 'authpriv', '{user} : TTY=pts/0 ; PWD=/home/{user} ; USER=root ; COMMAND=/usr/bin/systemctl restart nginx'],
  ['CRON', 'cron', '(root) CMD (/usr/local/bin/rotate-logs >/dev/null 2>&1)'],
  ['systemd', 'daemon', 'Started Session {n} of User {user}.'],
  ['kernel', 'kern', '[{n}.{port}] UFW BLOCK IN=eth0 OUT= SRC={ip} DST=10.0.1.12 LEN=60 PROTO=TCP SPT={port} DPT=23'],
  ['postfix/smtpd', 'mail', 'connect from unknown[{ip}]'],
  ['dhclient', 'daemon', 'DHCPACK of 10.0.1.{n} from 10.0.1.1'],
];
export const APP_MESSAGES = [
  'order {n} created for customer {n} with 3 items',
  'cache miss for key session:{h}; loaded from database in 12 ms',
  'upstream payment provider timed out after 3000 ms; retrying',
  'request completed in {n} ms',
  'invoice {n} rendered as PDF',
  'scheduled job cleanup-sessions finished, {n} rows removed',
];
