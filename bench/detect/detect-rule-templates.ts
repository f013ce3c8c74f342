// The templates of the detection benchmark's synthetic rules (detect-rules.ts): one per rule
// shape — web, sshd/auth/syslog, Windows and Linux process creation, network connections,
// Kubernetes audit — each drawing made-up names and returning the rule with a record it matches.
import { type JsonObject } from '../../test/fixtures/rule-pack/records.js';
import { at } from '../common/checked.js';
import { Names, type Draft, type RecordSpec } from './detect-rule-names.js';
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

const LOLBINS = [
  'rundll32',
  'regsvr32',
  'mshta',
  'certutil',
  'msiexec',
  'wmic',
  'cmd',
  'powershell',
  'schtasks',
  'reg',
  'bitsadmin',
  'cscript',
  'forfiles',
  'installutil',
];
const WEB_PARENTS = ['/nginx', '/httpd', '/php-fpm', '/java', '/node', '/apache2'];

export type Template = (r: Random, n: Names) => Draft;

const request = (method: string, target: string) => `${method} ${target} HTTP/1.1`;

const webQuery: Template = (r, n) => {
  const tool = n.name();
  const values = [
    `${n.name()}_exec=`,
    `%2f${tool}%2f`,
    `${tool}.${pick(r, ['jsp', 'aspx', 'cgi'])}`,
    `cmd=${n.name()}`,
  ].slice(0, int(r, 2, 4));
  const detection: Record<string, unknown> = { selection: { 'cs-uri-query|contains': values } };
  if (r() < 0.5) detection.filter = { 'c-useragent|contains': `${capital(n.name())}-Monitor` };
  detection.condition = detection.filter ? 'selection and not filter' : 'selection';
  const target = `/${pick(r, ['index.php', 'api/v1/search', 'cgi-bin/status', 'portal/login'])}?id=${int(r, 1, 9999)}&x=${pick(r, values)}${hex(r, 6)}`;
  return {
    folder: 'web',
    title: `${capital(tool)} Exploitation Attempt in Query String`,
    logsource: { category: 'webserver' },
    detection,
    trigger: { shape: 'nginx', overrides: { request: request('GET', target) } },
  };
};

const webUserAgent: Template = (r, n) => {
  const tool = capital(n.name());
  const other = capital(n.name());
  const startswith = r() < 0.3;
  const key = startswith ? 'c-useragent|startswith' : 'c-useragent|contains';
  const detection = { selection: { [key]: [`${tool}/`, `${other}Bot`] }, condition: 'selection' };
  const agent = `${tool}/${int(r, 1, 9)}.${int(r, 0, 20)} (+https://${tool.toLowerCase()}.example.net/bot)`;
  return {
    folder: 'web',
    title: `${tool} Scanner User Agent`,
    logsource: { category: 'webserver' },
    detection,
    trigger: { shape: 'nginx', overrides: { http_user_agent: agent } },
  };
};

const webStem: Template = (r, n) => {
  const tool = n.name();
  const detection = {
    selection: { 'cs-method': 'POST', 'cs-uri-stem|endswith': [`/${tool}.php`, `/${tool}.jsp`] },
    filter: { 'sc-status': [404, 403] },
    condition: 'selection and not filter',
  };
  return {
    folder: 'web',
    title: `Web Shell ${capital(tool)} Accessed`,
    logsource: { category: 'webserver' },
    detection,
    trigger: { shape: 'nginx', overrides: { request: request('POST', `/uploads/${tool}.php`), status: '200' } },
  };
};

const webKeywords: Template = (r, n) => {
  const tool = n.name();
  const token = n.token();
  const detection = { keywords: [`/${tool}/${token}`, `${n.name()}_payload=`], condition: 'keywords' };
  return {
    folder: 'web',
    title: `${capital(tool)} Exploit Path`,
    logsource: { category: 'webserver', product: pick(r, ['nginx', 'nginx', 'apache']) },
    detection,
    trigger: {
      shape: 'nginx',
      overrides: { request: request('GET', `/${tool}/${token}/index.html`), source: 'nginx-access' },
    },
  };
};

const sshd: Template = (r, n) => {
  const tool = n.name();
  const phrase = `${pick(r, ['error', 'fatal', 'warning'])}: ${tool}: ${pick(r, ['invalid key exchange', 'unexpected banner', 'oversized packet', 'bad client version'])}`;
  const detection: Record<string, unknown> = {
    selection: { 'message|contains': [phrase, `Connection closed by ${tool} `] },
  };
  if (r() < 0.5) detection.filter = { 'message|contains': 'from 10.0.' };
  detection.condition = detection.filter ? 'selection and not filter' : 'selection';
  const message = `${phrase} from ${ipv4(r)} port ${int(r, 1024, 65535)}`;
  return {
    folder: 'linux',
    title: `SSH ${capital(tool)} Protocol Anomaly`,
    logsource: { product: 'linux', service: 'sshd' },
    detection,
    trigger: { shape: 'syslog', overrides: { program: 'sshd', message } },
  };
};

const authKeywords: Template = (r, n) => {
  const tool = n.name();
  const detection = { keywords: [`pam_${tool}(`, `${tool}: authentication failure`], condition: 'keywords' };
  const message = `pam_${tool}(su:auth): authentication failure; logname=alice uid=1000 euid=0 tty=pts/${int(r, 0, 9)} ruser=alice rhost=  user=root`;
  return {
    folder: 'linux',
    title: `Rogue PAM Module ${capital(tool)}`,
    logsource: { product: 'linux', service: 'auth' },
    detection,
    trigger: { shape: 'syslog', overrides: { program: 'su', facility: 'authpriv', message } },
  };
};

const syslogRegex: Template = (r, n) => {
  const tool = n.name();
  const pattern = `${tool}\\[[0-9]+\\]: (loaded|injected) module [a-z_]{3,16}`;
  // Like SigmaHQ's, most regex rules also name a literal; about one in four relies on the regex alone.
  const detection: Record<string, unknown> =
    r() < 0.25
      ? { selection: { 'message|re': pattern }, condition: 'selection' }
      : {
          selection_name: { 'message|contains': `${tool}[` },
          selection_pattern: { 'message|re': pattern },
          condition: 'all of selection_*',
        };
  const message = `${tool}[${int(r, 100, 65000)}]: ${pick(r, ['loaded', 'injected'])} module ${pick(r, ['net_hook', 'kbd_log', 'fs_shadow'])}`;
  return {
    folder: 'linux',
    title: `${capital(tool)} Kernel Module Loader`,
    logsource: { product: 'linux', service: 'syslog' },
    detection,
    trigger: { shape: 'syslog', overrides: { program: 'kernel', facility: 'kern', message } },
  };
};

const windowsTool: Template = (r, n) => {
  const tool = n.name();
  const flags = [` -${n.name()}`, `${pick(r, ['/', '--'])}${n.name()}`];
  const detection = {
    selection_img: [{ 'Image|endswith': `\\${tool}.exe` }, { OriginalFileName: `${tool}.exe` }],
    selection_cli: { 'CommandLine|contains|all': flags },
    condition: 'all of selection_*',
  };
  const image = `C:\\${pick(r, ['Users\\Public', 'ProgramData', 'Windows\\Temp'])}\\${tool}.exe`;
  const overrides = {
    Image: image,
    OriginalFileName: `${tool}.exe`,
    CommandLine: `"${image}"${flags[0]} ${flags[1]} ${hex(r, 8)}`,
  };
  return {
    folder: 'windows',
    title: `${capital(tool)} Hack Tool Execution`,
    logsource: { category: 'process_creation', product: 'windows' },
    detection,
    trigger: { shape: 'sysmon_process', overrides },
  };
};

const windowsLolbin: Template = (r, n) => {
  const binary = pick(r, LOLBINS);
  const tool = n.name();
  const needles = [
    pick(r, [`${tool}.dll`, `\\AppData\\Roaming\\${capital(tool)}\\`, `${tool}.hta`]),
    pick(r, [`,${capital(n.name())}`, `/${n.name()}:`, ` -${n.name()} `]),
  ];
  const detection = {
    selection: { 'Image|endswith': `\\${binary}.exe`, 'CommandLine|contains|all': needles },
    filter: { 'ParentImage|endswith': `\\${n.name()}agent.exe` },
    condition: 'selection and not filter',
  };
  const overrides = {
    Image: `C:\\Windows\\System32\\${binary}.exe`,
    OriginalFileName: `${binary}.exe`,
    CommandLine: `${binary}.exe ${needles[0]}${needles[1]}x`,
    ParentImage: 'C:\\Windows\\explorer.exe',
  };
  return {
    folder: 'windows',
    title: `${capital(binary)} Loads ${capital(tool)} Payload`,
    logsource: { category: 'process_creation', product: 'windows' },
    detection,
    trigger: { shape: 'sysmon_process', overrides },
  };
};

const linuxTool: Template = (r, n) => {
  const tool = n.name();
  if (r() < 0.5) {
    const detection = {
      selection_img: { 'Image|endswith': [`/${tool}`, `/${tool}d`] },
      selection_cli: {
        'CommandLine|contains': [`/dev/shm/.${n.token()}`, `--${n.name()}-${pick(r, ['beacon', 'exfil', 'persist'])}`],
      },
      condition: '1 of selection_*',
    };
    const overrides = {
      os: 'linux',
      process: { name: tool, executable: `/usr/local/bin/${tool}`, command_line: `${tool} -d -q` },
    };
    return {
      folder: 'linux',
      title: `${capital(tool)} Implant Execution`,
      logsource: { category: 'process_creation', product: 'linux' },
      detection,
      trigger: { shape: 'process', overrides },
    };
  }
  const parents = [pick(r, WEB_PARENTS), pick(r, WEB_PARENTS)];
  const token = n.token();
  const detection = {
    selection: {
      'ParentImage|endswith': [...new Set(parents)],
      'Image|endswith': ['/sh', '/bash', '/dash'],
      'CommandLine|contains': token,
    },
    condition: 'selection',
  };
  const overrides = {
    os: 'linux',
    process: { name: 'sh', executable: '/bin/sh', command_line: `sh -c ${token} >/dev/null` },
    parent: { executable: `/usr/sbin${parents[0]}` },
  };
  return {
    folder: 'linux',
    title: `Web Server Runs ${capital(tool)} Stager`,
    logsource: { category: 'process_creation', product: 'linux' },
    detection,
    trigger: { shape: 'process', overrides },
  };
};

const networkTool: Template = (r, n) => {
  const tool = n.name();
  const ports = [int(r, 1025, 65000), int(r, 1025, 65000)];
  const windows = r() < 0.6;
  const detection = {
    selection: { 'Image|endswith': windows ? `\\${tool}.exe` : `/${tool}`, DestinationPort: ports, Initiated: 'true' },
    condition: 'selection',
  };
  const trigger: RecordSpec = windows
    ? {
        shape: 'sysmon_network',
        overrides: { Image: `C:\\ProgramData\\${tool}.exe`, DestinationPort: String(ports[0]), DestinationIp: ipv4(r) },
      }
    : {
        shape: 'network',
        overrides: {
          process: { name: tool, executable: `/tmp/${tool}` },
          destination: { ip: ipv4(r), port: at(ports, 0) },
        },
      };
  return {
    folder: 'network',
    title: `${capital(tool)} Beacon Connection`,
    logsource: windows
      ? { category: 'network_connection', product: 'windows' }
      : { category: 'network_connection', product: 'linux' },
    detection,
    trigger,
  };
};

const networkCidr: Template = (r, n) => {
  const tool = n.name();
  const network = `${int(r, 11, 223)}.${int(r, 0, 255)}.${int(r, 0, 255)}`;
  const withImage = r() < 0.7;
  const port = int(r, 1025, 65000);
  const selection = withImage
    ? {
        'DestinationIp|cidr': [`${network}.0/24`, `${int(r, 11, 223)}.${int(r, 0, 255)}.0.0/16`],
        'Image|endswith': [`\\${tool}.exe`, `\\${tool}svc.exe`],
      }
    : { 'DestinationIp|cidr': `${network}.0/24`, DestinationPort: port };
  const overrides: JsonObject = {
    DestinationIp: `${network}.${int(r, 1, 254)}`,
    DestinationPort: String(withImage ? 443 : port),
  };
  if (withImage) overrides.Image = `C:\\Users\\alice\\AppData\\Local\\${tool}.exe`;
  return {
    folder: 'network',
    title: `Connection to ${capital(tool)} Infrastructure`,
    logsource: { category: 'network_connection' },
    detection: { selection, condition: 'selection' },
    trigger: { shape: 'sysmon_network', overrides },
  };
};

const kubernetes: Template = (r, n) => {
  const resource = `${n.name()}s`;
  const namespace = `${n.name()}-${pick(r, ['prod', 'system', 'ops'])}`;
  const detection = {
    selection: {
      verb: ['create', 'patch', 'update'],
      'objectRef.resource': resource,
      'objectRef.namespace|startswith': namespace.split('-')[0],
    },
    filter: { 'user.username|startswith': `system:serviceaccount:${n.name()}:` },
    condition: 'selection and not filter',
  };
  const overrides = {
    verb: 'create',
    requestURI: `/apis/example.io/v1/namespaces/${namespace}/${resource}`,
    objectRef: { resource, namespace, apiVersion: 'v1' },
  };
  return {
    folder: 'kubernetes',
    title: `${capital(resource)} Created in ${namespace}`,
    logsource: { product: 'kubernetes', service: 'audit' },
    detection,
    trigger: { shape: 'kubernetes_audit', overrides },
  };
};

/** Templates with their share of the synthetic pack. */
export const TEMPLATES: [Template, number][] = [
  [webQuery, 12],
  [webUserAgent, 8],
  [webStem, 5],
  [webKeywords, 3],
  [sshd, 7],
  [authKeywords, 5],
  [syslogRegex, 4],
  [windowsTool, 14],
  [windowsLolbin, 12],
  [linuxTool, 12],
  [networkTool, 8],
  [networkCidr, 4],
  [kubernetes, 6],
];
