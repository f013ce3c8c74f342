// Cloud and SaaS audit logs through POST /log_sink, each in the record format its vendor
// documents (CloudTrail records, Azure Monitor exports, Cloud Audit Logs entries, Workspace
// Reports activities, Okta System Log, GitHub audit log, Microsoft 365 unified audit log,
// Bitbucket audit events): a SigmaHQ rule for each mapped service fires end to end.
import { describeSigmaFamily, type SigmaCase } from '../helpers/sigma-cases.js';

const now = () => new Date().toISOString();
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';

/** An Azure Monitor diagnostic-setting export record. */
function azure(category: string, operationName: string, properties: Record<string, unknown>, extra = {}) {
  return {
    time: now(),
    resourceId: `/tenants/${TENANT}/providers/Microsoft.aadiam`,
    operationName,
    operationVersion: '1.0',
    category,
    tenantId: TENANT,
    resultType: 'Success',
    callerIpAddress: '198.51.100.23',
    correlationId: 'a1b2c3d4-0000-4000-8000-000000000001',
    identity: 'alice@contoso.com',
    level: 4,
    properties,
    ...extra,
  };
}

const cases: SigmaCase[] = [
  {
    name: 'CloudTrail: ec2 CreateRoute',
    record: {
      eventVersion: '1.09',
      userIdentity: {
        type: 'IAMUser',
        principalId: 'AIDAJ45Q7YFFAREXAMPLE',
        arn: 'arn:aws:iam::123456789012:user/alice',
        accountId: '123456789012',
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        userName: 'alice',
      },
      eventTime: now(),
      eventSource: 'ec2.amazonaws.com',
      eventName: 'CreateRoute',
      awsRegion: 'eu-west-1',
      sourceIPAddress: '198.51.100.23',
      userAgent: 'aws-cli/2.15.0 Python/3.11.6',
      requestParameters: { routeTableId: 'rtb-0a1b2c3d', destinationCidrBlock: '0.0.0.0/0', gatewayId: 'igw-0f1e2d3c' },
      responseElements: { _return: true },
      requestID: '6f2b1c9e-3d4a-4b5c-8e7f-0a1b2c3d4e5f',
      eventID: '0c9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
      readOnly: false,
      eventType: 'AwsApiCall',
      managementEvent: true,
      recipientAccountId: '123456789012',
      eventCategory: 'Management',
    },
    rule: 'cloud/aws/cloudtrail/aws_cloudtrail_new_route_added.yml',
  },
  {
    name: 'Azure sign-in log: the account is locked out (50053)',
    record: azure(
      'SignInLogs',
      'Sign-in activity',
      {
        id: 'b2c3d4e5-0000-4000-8000-000000000002',
        createdDateTime: now(),
        userDisplayName: 'Alice',
        userPrincipalName: 'alice@contoso.com',
        appDisplayName: 'Azure Portal',
        ipAddress: '198.51.100.23',
        clientAppUsed: 'Browser',
        status: { errorCode: 50053, failureReason: 'Account is locked because user tried to sign in too many times.' },
        authenticationRequirement: 'singleFactorAuthentication',
      },
      { resultType: '50053', resultSignature: 'None' },
    ),
    rule: 'cloud/azure/signin_logs/azure_account_lockout.yml',
  },
  {
    name: 'Azure audit log: a service principal is added',
    record: azure('AuditLogs', 'Add service principal', {
      id: 'Directory_c3d4e5f6',
      category: 'ApplicationManagement',
      activityDisplayName: 'Add service principal',
      loggedByService: 'Core Directory',
      result: 'success',
      initiatedBy: { user: { userPrincipalName: 'alice@contoso.com' } },
      targetResources: [{ displayName: 'backup-sync', type: 'ServicePrincipal' }],
    }),
    rule: 'cloud/azure/audit_logs/azure_service_principal_created.yml',
  },
  {
    name: 'Azure activity log: a Cloud Shell console is created',
    record: {
      time: now(),
      resourceId: '/SUBSCRIPTIONS/0000AAAA-1111-2222-3333-444455556666/PROVIDERS/MICROSOFT.PORTAL/CONSOLES/DEFAULT',
      operationName: 'MICROSOFT.PORTAL/CONSOLES/WRITE',
      category: 'Administrative',
      resultType: 'Success',
      resultSignature: 'Succeeded.OK',
      callerIpAddress: '198.51.100.23',
      correlationId: 'd4e5f6a7-0000-4000-8000-000000000004',
      identity: { claims: { name: 'alice@contoso.com' } },
      level: 'Information',
      properties: { statusCode: 'OK', serviceRequestId: null },
    },
    rule: 'cloud/azure/activity_logs/azure_new_cloudshell_created.yml',
  },
  {
    name: 'Azure risk detection: a password spray',
    record: azure('UserRiskEvents', 'User Risk Detection', {
      id: 'e5f6a7b8',
      riskEventType: 'passwordSpray',
      riskLevel: 'high',
      riskState: 'atRisk',
      detectionTimingType: 'offline',
      userPrincipalName: 'alice@contoso.com',
      ipAddress: '198.51.100.23',
    }),
    rule: 'cloud/azure/identity_protection/azure_identity_protection_password_spray.yml',
  },
  {
    name: 'GCP Cloud Audit Logs: storage buckets are listed',
    record: {
      protoPayload: {
        '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
        status: {},
        authenticationInfo: { principalEmail: 'alice@example.com' },
        requestMetadata: { callerIp: '198.51.100.23', callerSuppliedUserAgent: 'google-cloud-sdk gcloud/456.0.0' },
        serviceName: 'storage.googleapis.com',
        methodName: 'storage.buckets.list',
        authorizationInfo: [{ resource: 'projects/_/buckets', permission: 'storage.buckets.list', granted: true }],
        resourceName: 'projects/_/buckets',
      },
      insertId: '1x2y3z4w5v6u',
      resource: { type: 'gcs_bucket', labels: { project_id: 'acme-prod', location: 'global' } },
      timestamp: now(),
      severity: 'INFO',
      logName: 'projects/acme-prod/logs/cloudaudit.googleapis.com%2Fdata_access',
      receiveTimestamp: now(),
    },
    rule: 'cloud/gcp/audit/gcp_bucket_enumeration.yml',
  },
  {
    name: 'Google Workspace login audit in Cloud Logging: out-of-domain forwarding',
    record: {
      protoPayload: {
        '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
        serviceName: 'login.googleapis.com',
        methodName: 'google.login.LoginService.emailForwardingOutOfDomain',
        metadata: { event: { eventName: 'email_forwarding_out_of_domain', eventType: 'account_warning' } },
        authenticationInfo: { principalEmail: 'alice@example.com' },
      },
      resource: { type: 'audited_resource', labels: { service: 'login.googleapis.com' } },
      timestamp: now(),
      logName: 'organizations/123456789/logs/cloudaudit.googleapis.com%2Fdata_access',
    },
    rule: 'cloud/gcp/gworkspace/login/gcp_gworkspace_out_of_domain_email_forwarding.yml',
  },
  {
    name: 'Google Workspace Reports API: an admin privilege is removed',
    record: {
      kind: 'admin#reports#activity',
      id: { time: now(), uniqueQualifier: '-1234567890', applicationName: 'admin', customerId: 'C01abcde' },
      etag: '"abc/def"',
      actor: { email: 'admin@example.com', profileId: '100000000000000000001' },
      ipAddress: '198.51.100.23',
      events: [
        {
          type: 'DELEGATED_ADMIN_SETTINGS',
          name: 'REMOVE_PRIVILEGE',
          parameters: [
            { name: 'PRIVILEGE_NAME', value: 'USERS_RETRIEVE' },
            { name: 'ROLE_NAME', value: 'Helpdesk' },
          ],
        },
      ],
    },
    rule: 'cloud/gcp/gworkspace/admin/gcp_gworkspace_role_privilege_deleted.yml',
  },
  {
    name: 'Okta System Log: an API token is created',
    record: {
      uuid: 'f1e2d3c4-b5a6-11ee-9c8d-7e6f5a4b3c2d',
      published: now(),
      eventType: 'system.api_token.create',
      version: '0',
      severity: 'INFO',
      legacyEventType: 'api.token.create',
      displayMessage: 'Create API token',
      actor: { id: '00u1a2b3c4d5e6f7g8h9', type: 'User', alternateId: 'admin@example.com', displayName: 'Admin' },
      client: { ipAddress: '198.51.100.23', userAgent: { rawUserAgent: 'Mozilla/5.0' } },
      outcome: { result: 'SUCCESS' },
      target: [{ id: '00T1a2b3c4', type: 'Token', alternateId: 'unknown', displayName: 'automation' }],
      transaction: { type: 'WEB', id: 'YXa1b2c3' },
    },
    rule: 'identity/okta/okta_api_token_created.yml',
  },
  {
    name: 'GitHub audit log: a Pages site is made public',
    record: {
      '@timestamp': Date.now(),
      _document_id: 'Xk2bQe9Gq4Zl8VnN1rT6yA',
      action: 'repo.pages_public',
      actor: 'octocat',
      actor_location: { country_code: 'US' },
      org: 'acme',
      repo: 'acme/internal-docs',
      visibility: 'private',
      created_at: Date.now(),
    },
    rule: 'application/github/audit/github_pages_site_changed_to_public.yml',
  },
  {
    name: 'Microsoft 365 unified audit log: an impossible travel alert',
    record: {
      CreationTime: now().slice(0, 19),
      Id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      Operation: 'AlertTriggered',
      OrganizationId: TENANT,
      RecordType: 40,
      ResultStatus: 'Succeeded',
      UserKey: 'SecurityComplianceAlerts',
      UserType: 4,
      Workload: 'SecurityComplianceCenter',
      ObjectId: 'f0e1d2c3-b4a5-4968-8776-655443322110',
      UserId: 'SecurityComplianceAlerts',
      Name: 'Impossible travel activity',
      Category: 'ThreatManagement',
      Severity: 'Medium',
    },
    rule: 'cloud/m365/threat_management/microsoft365_impossible_travel_activity.yml',
  },
  {
    name: 'Microsoft 365 unified audit log: strong authentication is disabled',
    record: {
      CreationTime: now().slice(0, 19),
      Id: '1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e',
      Operation: 'Disable Strong Authentication.',
      OrganizationId: TENANT,
      RecordType: 8,
      ResultStatus: 'Success',
      UserKey: '10032001A2B3C4D5@contoso.com',
      UserType: 0,
      Workload: 'AzureActiveDirectory',
      ObjectId: 'bob@contoso.com',
      UserId: 'alice@contoso.com',
    },
    rule: 'cloud/m365/audit/microsoft365_disabling_mfa.yml',
  },
  {
    name: 'Bitbucket Data Center audit event: a failed login',
    record: {
      affectedObjects: [{ name: 'bob', type: 'USER' }],
      auditType: {
        action: 'User login failed',
        actionI18nKey: 'bitbucket.service.user.audit.action.loginfailed',
        area: 'SECURITY',
        category: 'Authentication',
        level: 'BASE',
      },
      author: { id: '-2', name: 'Anonymous', type: 'user' },
      changedValues: [],
      extraAttributes: [],
      method: 'Browser',
      node: 'bb-node-1',
      source: '198.51.100.23',
      system: 'https://bitbucket.example.com',
      timestamp: { epochSecond: Math.floor(Date.now() / 1000), nano: 0 },
    },
    rule: 'application/bitbucket/audit/bitbucket_audit_user_login_failure_detected.yml',
  },
];

/** Recognised shapes with missing or wrong parts: stored, and detection carries on. */
const malformed = [
  { eventVersion: '1.09', eventSource: 'iam.amazonaws.com', eventName: 'CreateUser', userIdentity: 'not-an-object' },
  // CloudTrail without userIdentity (nor a source address or region).
  {
    eventVersion: '1.09',
    eventSource: 's3.amazonaws.com',
    eventName: 'DeleteBucket',
    eventTime: '2026-11-24T10:00:00Z',
  },
  { category: 'SignInLogs', operationName: 'Sign-in activity', tenantId: TENANT, properties: 'broken' },
  { protoPayload: { '@type': 'type.googleapis.com/google.cloud.audit.AuditLog', methodName: 42 } },
  { kind: 'admin#reports#activity', id: { applicationName: 'admin' }, events: 'none' },
];

describeSigmaFamily('Cloud and SaaS audit logs', cases, undefined, malformed);
