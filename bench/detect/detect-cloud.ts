// Benign cloud audit events for the detection benchmark, in each provider's documented record
// format: AWS CloudTrail records, Microsoft Entra ID sign-in logs as Azure diagnostic settings
// export them, Google Cloud audit log entries (protoPayload AuditLog) and Okta System Log events.
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';
import type { JsonObject } from '../../test/fixtures/rule-pack/records.js';

const AWS_CALLS: [string, string, boolean][] = [
  ['s3.amazonaws.com', 'GetObject', true],
  ['s3.amazonaws.com', 'PutObject', false],
  ['ec2.amazonaws.com', 'DescribeInstances', true],
  ['sts.amazonaws.com', 'AssumeRole', false],
  ['kms.amazonaws.com', 'Decrypt', true],
  ['logs.amazonaws.com', 'CreateLogStream', false],
  ['dynamodb.amazonaws.com', 'DescribeTable', true],
  ['iam.amazonaws.com', 'ListRoles', true],
];
const GCP_CALLS: [string, string][] = [
  ['storage.googleapis.com', 'storage.objects.get'],
  ['compute.googleapis.com', 'v1.compute.instances.list'],
  ['iam.googleapis.com', 'google.iam.admin.v1.GetServiceAccount'],
  ['cloudsql.googleapis.com', 'cloudsql.instances.get'],
];
const APPS = ['Microsoft Teams', 'Office 365 Exchange Online', 'Azure Portal', 'Microsoft Edge', 'OneDrive SyncEngine'];
const OKTA_EVENTS: [string, string][] = [
  ['user.session.start', 'User login to Okta'],
  ['user.authentication.sso', 'User single sign on to app'],
  ['user.authentication.auth_via_mfa', 'Authentication of user via MFA'],
  ['policy.evaluate_sign_on', 'Evaluation of sign-on policy'],
];
const PEOPLE = ['alice', 'bob', 'carol', 'dave'];
const AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const uuid = (r: Random) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;

function cloudTrail(r: Random, time: number): JsonObject {
  const [eventSource, eventName, readOnly] = pick(r, AWS_CALLS);
  const role = pick(r, ['app-deployer', 'ci-runner', 'data-pipeline']);
  return {
    eventVersion: '1.09',
    userIdentity: {
      type: 'AssumedRole',
      principalId: `AROA${hex(r, 16).toUpperCase()}:${role}`,
      arn: `arn:aws:sts::123456789012:assumed-role/${role}/${role}-session`,
      accountId: '123456789012',
      accessKeyId: `ASIA${hex(r, 16).toUpperCase()}`,
      sessionContext: {
        sessionIssuer: { type: 'Role', arn: `arn:aws:iam::123456789012:role/${role}`, userName: role },
        attributes: { creationDate: new Date(time - 600_000).toISOString(), mfaAuthenticated: 'false' },
      },
    },
    eventTime: new Date(time).toISOString().replace(/\.\d{3}/, ''),
    eventSource,
    eventName,
    awsRegion: pick(r, ['eu-west-1', 'us-east-1']),
    sourceIPAddress: pick(r, [ipv4(r), 'ec2.amazonaws.com']),
    userAgent: pick(r, ['aws-sdk-go-v2/1.30.3 os/linux lang/go#1.22.5', 'Boto3/1.34.144 md/Botocore#1.34.144']),
    requestParameters: { bucketName: `example-data-${int(r, 1, 9)}`, key: `exports/${hex(r, 10)}.parquet` },
    responseElements: null,
    requestID: hex(r, 16).toUpperCase(),
    eventID: uuid(r),
    readOnly,
    eventType: 'AwsApiCall',
    managementEvent: !eventSource.startsWith('s3'),
    recipientAccountId: '123456789012',
    eventCategory: eventSource.startsWith('s3') ? 'Data' : 'Management',
  };
}

function azureSignIn(r: Random, time: number): JsonObject {
  const person = pick(r, PEOPLE);
  const ok = r() < 0.93;
  return {
    time: new Date(time).toISOString(),
    resourceId: '/tenants/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/providers/Microsoft.aadiam',
    operationName: 'Sign-in activity',
    operationVersion: '1.0',
    category: 'SignInLogs',
    tenantId: '0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b',
    resultType: ok ? '0' : '50126',
    resultSignature: 'None',
    durationMs: 0,
    callerIpAddress: ipv4(r),
    correlationId: uuid(r),
    identity: `${person} example`,
    Level: 4,
    location: 'NL',
    properties: {
      id: uuid(r),
      createdDateTime: new Date(time).toISOString(),
      userDisplayName: `${person} example`,
      userPrincipalName: `${person}@example.com`,
      userId: uuid(r),
      appId: uuid(r),
      appDisplayName: pick(r, APPS),
      ipAddress: ipv4(r),
      status: { errorCode: ok ? 0 : 50126, failureReason: ok ? null : 'Invalid username or password.' },
      clientAppUsed: 'Browser',
      userAgent: AGENT,
      conditionalAccessStatus: 'success',
      isInteractive: true,
      authenticationRequirement: 'multiFactorAuthentication',
      location: { city: 'Amsterdam', state: 'Noord-Holland', countryOrRegion: 'NL' },
    },
  };
}

function gcpAudit(r: Random, time: number): JsonObject {
  const [serviceName, methodName] = pick(r, GCP_CALLS);
  return {
    protoPayload: {
      '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      status: {},
      authenticationInfo: { principalEmail: `${pick(r, ['etl', 'web', 'ci'])}@example-prod.iam.gserviceaccount.com` },
      requestMetadata: { callerIp: ipv4(r), callerSuppliedUserAgent: 'google-cloud-sdk gcloud/485.0.0' },
      serviceName,
      methodName,
      resourceName: `projects/example-prod/buckets/reports-${int(r, 1, 9)}/objects/${hex(r, 8)}.csv`,
    },
    insertId: hex(r, 12),
    resource: { type: 'gcs_bucket', labels: { project_id: 'example-prod', location: 'europe-west4' } },
    timestamp: new Date(time).toISOString(),
    severity: 'INFO',
    logName: 'projects/example-prod/logs/cloudaudit.googleapis.com%2Fdata_access',
    receiveTimestamp: new Date(time + 400).toISOString(),
  };
}

function okta(r: Random, time: number): JsonObject {
  const [eventType, displayMessage] = pick(r, OKTA_EVENTS);
  const person = pick(r, PEOPLE);
  return {
    actor: { id: `00u${hex(r, 17)}`, type: 'User', alternateId: `${person}@example.com`, displayName: person },
    client: {
      userAgent: { rawUserAgent: AGENT, os: 'Windows 10', browser: 'CHROME' },
      zone: 'null',
      device: 'Computer',
      ipAddress: ipv4(r),
      geographicalContext: { city: 'Amsterdam', country: 'Netherlands' },
    },
    authenticationContext: { externalSessionId: hex(r, 24) },
    displayMessage,
    eventType,
    outcome: { result: 'SUCCESS' },
    published: new Date(time).toISOString(),
    severity: 'INFO',
    uuid: uuid(r),
    version: '0',
  };
}

/** One benign cloud audit event: CloudTrail most often, as in most estates. */
export function cloudEvent(r: Random, time: number): JsonObject {
  const roll = r();
  if (roll < 0.5) return cloudTrail(r, time);
  if (roll < 0.7) return azureSignIn(r, time);
  if (roll < 0.85) return gcpAudit(r, time);
  return okta(r, time);
}
